#if !canImport(Darwin)
import Foundation
import Keyring

// Core Foundation's SecItem-facing types, as Foundation's bridged classes.
//
// On Apple platforms these are toll-free bridged CF types; swift-corelibs-foundation keeps its
// CoreFoundation module private, so code written as `query as CFDictionary`,
// `var result: CFTypeRef?` or `kCFBooleanTrue` needs names to compile against. Aliasing them to
// the Foundation classes they bridge to keeps every cast Apple code writes (`as CFDictionary`,
// `as? Data`, `as? [String: Any]`, `kSecClass as String`) working unchanged.

/// Core Foundation's dictionary type: `query as CFDictionary` bridges a Swift dictionary.
public typealias CFDictionary = NSDictionary
/// Core Foundation's mutable dictionary type.
public typealias CFMutableDictionary = NSMutableDictionary
/// Any Core Foundation object, e.g. the result of `SecItemCopyMatching`.
public typealias CFTypeRef = AnyObject
/// Core Foundation's string type: every `kSec...` constant is one.
public typealias CFString = NSString
/// Core Foundation's Boolean type: `kCFBooleanTrue` and `kCFBooleanFalse`.
public typealias CFBoolean = NSNumber
/// Core Foundation's number type.
public typealias CFNumber = NSNumber
/// Core Foundation's data type: item secrets and persistent references.
public typealias CFData = NSData
/// Core Foundation's array type: the result of a `kSecMatchLimitAll` search.
public typealias CFArray = NSArray
/// Core Foundation's date type: `kSecAttrCreationDate` and `kSecAttrModificationDate`.
public typealias CFDate = NSDate
/// Core Foundation's error type, as filled in by `SecAccessControlCreateWithFlags`;
/// `error.takeRetainedValue() as Error` works as on Apple platforms.
public typealias CFError = NSError
/// Core Foundation's bit-mask type, the raw value of ``SecAccessControlCreateFlags``.
public typealias CFOptionFlags = UInt
/// A Carbon-era result code: what every SecItem function returns (`errSecSuccess` is 0).
public typealias OSStatus = Int32

/// Core Foundation's memory allocator. Only the default allocator exists here; SecItem
/// functions accept it for source compatibility and ignore it, as they do on Apple platforms
/// for every allocator but the default.
public final class CFAllocator: Sendable {
    private init() {}
}

/// The default allocator. `nil`, exactly as on Apple platforms, where `kCFAllocatorDefault`
/// is a null pointer meaning "the current default allocator".
///
/// Implicitly unwrapped, as Apple imports it, so code passing it where Apple's
/// signature expects `CFAllocator?` compiles the same way on both platforms.
public let kCFAllocatorDefault: CFAllocator! = nil

/// Core Foundation's `true`: `[kSecReturnData as String: kCFBooleanTrue!]`.
///
/// Implicitly unwrapped, exactly as Apple imports it, so code written either as
/// `kCFBooleanTrue` or as `kCFBooleanTrue!` compiles unchanged (and gets the same "implicitly
/// coerced to Any" warning in an `[String: Any]` literal that Xcode gives).
/// Computed, because `NSNumber` is not `Sendable` and a global `let` of it would need
/// `nonisolated(unsafe)`; every read is an equal value.
public var kCFBooleanTrue: CFBoolean! { NSNumber(value: true) }

/// Core Foundation's `false`; implicitly unwrapped like ``kCFBooleanTrue``.
public var kCFBooleanFalse: CFBoolean! { NSNumber(value: false) }
#endif
