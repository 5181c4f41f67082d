#if !canImport(Darwin)
import Foundation

// Core Foundation's CFError functions, which keychain code uses to turn the error of
// SecAccessControlCreateWithFlags into an NSError or a message. `CFError` is `NSError` here
// (CoreFoundationTypes.swift), so each is the NSError property Apple documents it as bridging to.

/// Core Foundation's signed index type: `CFErrorGetCode`'s result.
public typealias CFIndex = Int
/// The domain of a `CFError`, a string such as `kCFErrorDomainOSStatus`.
public typealias CFErrorDomain = CFString

/// The domain of OSStatus errors, e.g. from `SecAccessControlCreateWithFlags`. Value: `"NSOSStatusErrorDomain"`.
public var kCFErrorDomainOSStatus: CFErrorDomain { NSString(string: NSOSStatusErrorDomain) }
/// The domain of POSIX (`errno`) errors. Value: `"NSPOSIXErrorDomain"`.
public var kCFErrorDomainPOSIX: CFErrorDomain { NSString(string: NSPOSIXErrorDomain) }
/// The domain of Cocoa errors. Value: `"NSCocoaErrorDomain"`.
public var kCFErrorDomainCocoa: CFErrorDomain { NSString(string: NSCocoaErrorDomain) }
/// The user-info key of the localized description. Value: `"NSLocalizedDescription"`.
public var kCFErrorLocalizedDescriptionKey: CFString { NSString(string: NSLocalizedDescriptionKey) }
/// The user-info key of the localized failure reason. Value: `"NSLocalizedFailureReason"`.
public var kCFErrorLocalizedFailureReasonKey: CFString { NSString(string: NSLocalizedFailureReasonErrorKey) }
/// The user-info key of the localized recovery suggestion. Value: `"NSLocalizedRecoverySuggestion"`.
public var kCFErrorLocalizedRecoverySuggestionKey: CFString { NSString(string: NSLocalizedRecoverySuggestionErrorKey) }
/// The user-info key of the underlying error. Value: `"NSUnderlyingError"`.
public var kCFErrorUnderlyingErrorKey: CFString { NSString(string: NSUnderlyingErrorKey) }

/// Creates an error, as `NSError(domain:code:userInfo:)` does.
/// - Parameters:
///   - allocator: Ignored; pass `kCFAllocatorDefault` or `nil`.
///   - domain: The error domain, e.g. `kCFErrorDomainOSStatus`.
///   - code: The code within the domain.
///   - userInfo: String-keyed details, or `nil`.
public func CFErrorCreate(_ allocator: CFAllocator?, _ domain: CFErrorDomain!, _ code: CFIndex, _ userInfo: CFDictionary?) -> CFError! {
    var info: [String: Any] = [:]
    for case let (key as String, value) in userInfo ?? NSDictionary() { info[key] = value }
    return NSError(domain: domain as String, code: code, userInfo: info)
}

/// The error's domain (`NSError.domain`).
public func CFErrorGetDomain(_ err: CFError!) -> CFErrorDomain! {
    NSString(string: err.domain)
}

/// The error's code (`NSError.code`), e.g. `errSecParam` for an OSStatus error.
public func CFErrorGetCode(_ err: CFError!) -> CFIndex {
    err.code
}

/// A copy of the error's user-info dictionary (`NSError.userInfo`); empty, not `nil`, when
/// it has none, as Apple documents.
public func CFErrorCopyUserInfo(_ err: CFError!) -> CFDictionary! {
    NSDictionary(dictionary: err.userInfo)
}

/// A description of the error for a person (`NSError.localizedDescription`).
public func CFErrorCopyDescription(_ err: CFError!) -> CFString! {
    NSString(string: err.localizedDescription)
}

/// Why the error happened: the user info's `kCFErrorLocalizedFailureReasonKey`, or `nil`.
/// Only the user info is consulted, as CFError.h documents (Foundation would also make one
/// up for some domains).
public func CFErrorCopyFailureReason(_ err: CFError!) -> CFString! {
    (err.userInfo[NSLocalizedFailureReasonErrorKey] as? String).map { NSString(string: $0) }
}

/// What a person can do about it: the user info's `kCFErrorLocalizedRecoverySuggestionKey`,
/// or `nil`.
public func CFErrorCopyRecoverySuggestion(_ err: CFError!) -> CFString! {
    (err.userInfo[NSLocalizedRecoverySuggestionErrorKey] as? String).map { NSString(string: $0) }
}
#endif
