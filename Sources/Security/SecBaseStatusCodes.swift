#if !canImport(Darwin)
import Foundation

// GENERATED from the "Security Error Codes" enum of Apple's SecBase.h (every `errSec...`
// constant, with the end-user message the header gives after it, which is what
// SecCopyErrorMessageString returns). The table below and the constants are the same data;
// SecBaseStatusCodesTests checks every value and message. Codes the header declares without
// a message get SecCopyErrorMessageString's fallback, "OSStatus <n>". Old misspellings that
// Apple keeps as deprecated aliases are aliases here too (not marked deprecated, so code under
// test compiles without new warnings).

/// No error. Value: `0`.
public let errSecSuccess: OSStatus = 0
/// Function or operation not implemented. Here: a feature that is not emulated. Value: `-4`.
public let errSecUnimplemented: OSStatus = -4
/// The disk is full. Value: `-34`.
public let errSecDiskFull: OSStatus = -34
/// The old spelling of `errSecDiskFull`, deprecated by Apple. Value: `-34`.
public let errSecDskFull: OSStatus = errSecDiskFull
/// I/O error. Value: `-36`.
public let errSecIO: OSStatus = -36
/// File already open with write permission. Value: `-49`.
public let errSecOpWr: OSStatus = -49
/// One or more parameters passed to a function were not valid. Here: a malformed query (missing class, wrong value type, a key the call refuses). Value: `-50`.
public let errSecParam: OSStatus = -50
/// Write permissions error. Value: `-61`.
public let errSecWrPerm: OSStatus = -61
/// Failed to allocate memory. Value: `-108`.
public let errSecAllocate: OSStatus = -108
/// User canceled the operation. Here: the user-presence answer was `.deny`. Value: `-128`.
public let errSecUserCanceled: OSStatus = -128
/// Bad parameter or invalid state for operation. Value: `-909`.
public let errSecBadReq: OSStatus = -909
/// Declared in SecBase.h without a message. Value: `-2070`.
public let errSecInternalComponent: OSStatus = -2070
/// Declared in SecBase.h without a message. Value: `-4960`.
public let errSecCoreFoundationUnknown: OSStatus = -4960
/// A required entitlement isn't present. The access group is not in the caller's entitlements. Value: `-34018`.
public let errSecMissingEntitlement: OSStatus = -34018
/// Client is restricted and is not permitted to perform this operation. Value: `-34020`.
public let errSecRestrictedAPI: OSStatus = -34020
/// No keychain is available. You may need to restart your computer. Here: the keyring store cannot be opened, or no process identity could be built. Value: `-25291`.
public let errSecNotAvailable: OSStatus = -25291
/// This keychain cannot be modified. Value: `-25292`.
public let errSecReadOnly: OSStatus = -25292
/// The user name or passphrase you entered is not correct. Here: also when no biometry or passcode is available (user-presence answer `.unavailable`). Value: `-25293`.
public let errSecAuthFailed: OSStatus = -25293
/// The specified keychain could not be found. Value: `-25294`.
public let errSecNoSuchKeychain: OSStatus = -25294
/// The specified keychain is not a valid keychain file. Value: `-25295`.
public let errSecInvalidKeychain: OSStatus = -25295
/// A keychain with the same name already exists. Value: `-25296`.
public let errSecDuplicateKeychain: OSStatus = -25296
/// The specified callback function is already installed. Value: `-25297`.
public let errSecDuplicateCallback: OSStatus = -25297
/// The specified callback function is not valid. Value: `-25298`.
public let errSecInvalidCallback: OSStatus = -25298
/// The specified item already exists in the keychain. An add or update collides with an existing item's primary key. Value: `-25299`.
public let errSecDuplicateItem: OSStatus = -25299
/// The specified item could not be found in the keychain. Nothing matched. Value: `-25300`.
public let errSecItemNotFound: OSStatus = -25300
/// There is not enough memory available to use the specified item. Value: `-25301`.
public let errSecBufferTooSmall: OSStatus = -25301
/// This item contains information which is too large or in a format that cannot be displayed. Value: `-25302`.
public let errSecDataTooLarge: OSStatus = -25302
/// The specified attribute does not exist. Here: an attribute the item's class does not have. Value: `-25303`.
public let errSecNoSuchAttr: OSStatus = -25303
/// The specified item is no longer valid. It may have been deleted from the keychain. Value: `-25304`.
public let errSecInvalidItemRef: OSStatus = -25304
/// Unable to search the current keychain. Value: `-25305`.
public let errSecInvalidSearchRef: OSStatus = -25305
/// The specified item does not appear to be a valid keychain item. Value: `-25306`.
public let errSecNoSuchClass: OSStatus = -25306
/// A default keychain could not be found. Value: `-25307`.
public let errSecNoDefaultKeychain: OSStatus = -25307
/// User interaction is not allowed. The item's accessibility forbids access in the current lock state, or a prompt was needed under `kSecUseAuthenticationUIFail`. Value: `-25308`.
public let errSecInteractionNotAllowed: OSStatus = -25308
/// The specified attribute could not be modified. Value: `-25309`.
public let errSecReadOnlyAttr: OSStatus = -25309
/// This keychain was created by a different version of the system software and cannot be opened. Value: `-25310`.
public let errSecWrongSecVersion: OSStatus = -25310
/// This item specifies a key size which is too large or too small. Value: `-25311`.
public let errSecKeySizeNotAllowed: OSStatus = -25311
/// A required component (data storage module) could not be loaded. You may need to restart your computer. Value: `-25312`.
public let errSecNoStorageModule: OSStatus = -25312
/// A required component (certificate module) could not be loaded. You may need to restart your computer. Value: `-25313`.
public let errSecNoCertificateModule: OSStatus = -25313
/// A required component (policy module) could not be loaded. You may need to restart your computer. Value: `-25314`.
public let errSecNoPolicyModule: OSStatus = -25314
/// User interaction is required, but is currently not allowed. Value: `-25315`.
public let errSecInteractionRequired: OSStatus = -25315
/// The contents of this item cannot be retrieved. Value: `-25316`.
public let errSecDataNotAvailable: OSStatus = -25316
/// The contents of this item cannot be modified. Value: `-25317`.
public let errSecDataNotModifiable: OSStatus = -25317
/// One or more certificates required to validate this certificate cannot be found. Value: `-25318`.
public let errSecCreateChainFailed: OSStatus = -25318
/// The specified preferences domain is not valid. Value: `-25319`.
public let errSecInvalidPrefsDomain: OSStatus = -25319
/// In dark wake, no UI possible Value: `-25320`.
public let errSecInDarkWake: OSStatus = -25320
/// The specified access control list is not in standard (simple) form. Value: `-25240`.
public let errSecACLNotSimple: OSStatus = -25240
/// The specified policy cannot be found. Value: `-25241`.
public let errSecPolicyNotFound: OSStatus = -25241
/// The specified trust setting is invalid. Value: `-25242`.
public let errSecInvalidTrustSetting: OSStatus = -25242
/// The specified item has no access control. Value: `-25243`.
public let errSecNoAccessForItem: OSStatus = -25243
/// Invalid attempt to change the owner of this item. Value: `-25244`.
public let errSecInvalidOwnerEdit: OSStatus = -25244
/// No trust results are available. Value: `-25245`.
public let errSecTrustNotAvailable: OSStatus = -25245
/// Import/Export format unsupported. Value: `-25256`.
public let errSecUnsupportedFormat: OSStatus = -25256
/// Unknown format in import. Value: `-25257`.
public let errSecUnknownFormat: OSStatus = -25257
/// Key material must be wrapped for export. Value: `-25258`.
public let errSecKeyIsSensitive: OSStatus = -25258
/// An attempt was made to import multiple private keys. Value: `-25259`.
public let errSecMultiplePrivKeys: OSStatus = -25259
/// Passphrase is required for import/export. Value: `-25260`.
public let errSecPassphraseRequired: OSStatus = -25260
/// The password reference was invalid. Value: `-25261`.
public let errSecInvalidPasswordRef: OSStatus = -25261
/// The Trust Settings Record was corrupted. Value: `-25262`.
public let errSecInvalidTrustSettings: OSStatus = -25262
/// No Trust Settings were found. Value: `-25263`.
public let errSecNoTrustSettings: OSStatus = -25263
/// MAC verification failed during PKCS12 import (wrong password?) Value: `-25264`.
public let errSecPkcs12VerifyFailure: OSStatus = -25264
/// A certificate was not signed by its proposed parent. Value: `-26267`.
public let errSecNotSigner: OSStatus = -26267
/// Unable to decode the provided data. Here: stored data is corrupted or tampered with. Value: `-26275`.
public let errSecDecode: OSStatus = -26275
/// The required service is not available. Value: `-67585`.
public let errSecServiceNotAvailable: OSStatus = -67585
/// The client ID is not correct. Value: `-67586`.
public let errSecInsufficientClientID: OSStatus = -67586
/// A device reset has occurred. Value: `-67587`.
public let errSecDeviceReset: OSStatus = -67587
/// A device failure has occurred. Value: `-67588`.
public let errSecDeviceFailed: OSStatus = -67588
/// Adding an application ACL subject failed. Value: `-67589`.
public let errSecAppleAddAppACLSubject: OSStatus = -67589
/// The public key is incomplete. Value: `-67590`.
public let errSecApplePublicKeyIncomplete: OSStatus = -67590
/// A signature mismatch has occurred. Value: `-67591`.
public let errSecAppleSignatureMismatch: OSStatus = -67591
/// The specified key has an invalid start date. Value: `-67592`.
public let errSecAppleInvalidKeyStartDate: OSStatus = -67592
/// The specified key has an invalid end date. Value: `-67593`.
public let errSecAppleInvalidKeyEndDate: OSStatus = -67593
/// A conversion error has occurred. Value: `-67594`.
public let errSecConversionError: OSStatus = -67594
/// A SSLv2 rollback error has occurred. Value: `-67595`.
public let errSecAppleSSLv2Rollback: OSStatus = -67595
/// The quota was exceeded. Value: `-67596`.
public let errSecQuotaExceeded: OSStatus = -67596
/// The file is too big. Value: `-67597`.
public let errSecFileTooBig: OSStatus = -67597
/// The specified database has an invalid blob. Value: `-67598`.
public let errSecInvalidDatabaseBlob: OSStatus = -67598
/// The specified database has an invalid key blob. Value: `-67599`.
public let errSecInvalidKeyBlob: OSStatus = -67599
/// The specified database has an incompatible blob. Value: `-67600`.
public let errSecIncompatibleDatabaseBlob: OSStatus = -67600
/// The specified database has an incompatible key blob. Value: `-67601`.
public let errSecIncompatibleKeyBlob: OSStatus = -67601
/// A host name mismatch has occurred. Value: `-67602`.
public let errSecHostNameMismatch: OSStatus = -67602
/// There is an unknown critical extension flag. Value: `-67603`.
public let errSecUnknownCriticalExtensionFlag: OSStatus = -67603
/// No basic constraints were found. Value: `-67604`.
public let errSecNoBasicConstraints: OSStatus = -67604
/// No basic CA constraints were found. Value: `-67605`.
public let errSecNoBasicConstraintsCA: OSStatus = -67605
/// The authority key ID is not valid. Value: `-67606`.
public let errSecInvalidAuthorityKeyID: OSStatus = -67606
/// The subject key ID is not valid. Value: `-67607`.
public let errSecInvalidSubjectKeyID: OSStatus = -67607
/// The key usage is not valid for the specified policy. Value: `-67608`.
public let errSecInvalidKeyUsageForPolicy: OSStatus = -67608
/// The extended key usage is not valid. Value: `-67609`.
public let errSecInvalidExtendedKeyUsage: OSStatus = -67609
/// The ID linkage is not valid. Value: `-67610`.
public let errSecInvalidIDLinkage: OSStatus = -67610
/// The path length constraint was exceeded. Value: `-67611`.
public let errSecPathLengthConstraintExceeded: OSStatus = -67611
/// The root or anchor certificate is not valid. Value: `-67612`.
public let errSecInvalidRoot: OSStatus = -67612
/// The CRL has expired. Value: `-67613`.
public let errSecCRLExpired: OSStatus = -67613
/// The CRL is not yet valid. Value: `-67614`.
public let errSecCRLNotValidYet: OSStatus = -67614
/// The CRL was not found. Value: `-67615`.
public let errSecCRLNotFound: OSStatus = -67615
/// The CRL server is down. Value: `-67616`.
public let errSecCRLServerDown: OSStatus = -67616
/// The CRL has a bad Uniform Resource Identifier. Value: `-67617`.
public let errSecCRLBadURI: OSStatus = -67617
/// An unknown certificate extension was encountered. Value: `-67618`.
public let errSecUnknownCertExtension: OSStatus = -67618
/// An unknown CRL extension was encountered. Value: `-67619`.
public let errSecUnknownCRLExtension: OSStatus = -67619
/// The CRL is not trusted. Value: `-67620`.
public let errSecCRLNotTrusted: OSStatus = -67620
/// The CRL policy failed. Value: `-67621`.
public let errSecCRLPolicyFailed: OSStatus = -67621
/// The issuing distribution point was not valid. Value: `-67622`.
public let errSecIDPFailure: OSStatus = -67622
/// An email address mismatch was encountered. Value: `-67623`.
public let errSecSMIMEEmailAddressesNotFound: OSStatus = -67623
/// The appropriate extended key usage for SMIME was not found. Value: `-67624`.
public let errSecSMIMEBadExtendedKeyUsage: OSStatus = -67624
/// The key usage is not compatible with SMIME. Value: `-67625`.
public let errSecSMIMEBadKeyUsage: OSStatus = -67625
/// The key usage extension is not marked as critical. Value: `-67626`.
public let errSecSMIMEKeyUsageNotCritical: OSStatus = -67626
/// No email address was found in the certificate. Value: `-67627`.
public let errSecSMIMENoEmailAddress: OSStatus = -67627
/// The subject alternative name extension is not marked as critical. Value: `-67628`.
public let errSecSMIMESubjAltNameNotCritical: OSStatus = -67628
/// The appropriate extended key usage for SSL was not found. Value: `-67629`.
public let errSecSSLBadExtendedKeyUsage: OSStatus = -67629
/// The OCSP response was incorrect or could not be parsed. Value: `-67630`.
public let errSecOCSPBadResponse: OSStatus = -67630
/// The OCSP request was incorrect or could not be parsed. Value: `-67631`.
public let errSecOCSPBadRequest: OSStatus = -67631
/// OCSP service is unavailable. Value: `-67632`.
public let errSecOCSPUnavailable: OSStatus = -67632
/// The OCSP server did not recognize this certificate. Value: `-67633`.
public let errSecOCSPStatusUnrecognized: OSStatus = -67633
/// An end-of-data was detected. Value: `-67634`.
public let errSecEndOfData: OSStatus = -67634
/// An incomplete certificate revocation check occurred. Value: `-67635`.
public let errSecIncompleteCertRevocationCheck: OSStatus = -67635
/// A network failure occurred. Value: `-67636`.
public let errSecNetworkFailure: OSStatus = -67636
/// The OCSP response was not trusted to a root or anchor certificate. Value: `-67637`.
public let errSecOCSPNotTrustedToAnchor: OSStatus = -67637
/// The record was modified. Value: `-67638`.
public let errSecRecordModified: OSStatus = -67638
/// The OCSP response had an invalid signature. Value: `-67639`.
public let errSecOCSPSignatureError: OSStatus = -67639
/// The OCSP response had no signer. Value: `-67640`.
public let errSecOCSPNoSigner: OSStatus = -67640
/// The OCSP responder was given a malformed request. Value: `-67641`.
public let errSecOCSPResponderMalformedReq: OSStatus = -67641
/// The OCSP responder encountered an internal error. Value: `-67642`.
public let errSecOCSPResponderInternalError: OSStatus = -67642
/// The OCSP responder is busy, try again later. Value: `-67643`.
public let errSecOCSPResponderTryLater: OSStatus = -67643
/// The OCSP responder requires a signature. Value: `-67644`.
public let errSecOCSPResponderSignatureRequired: OSStatus = -67644
/// The OCSP responder rejected this request as unauthorized. Value: `-67645`.
public let errSecOCSPResponderUnauthorized: OSStatus = -67645
/// The OCSP response nonce did not match the request. Value: `-67646`.
public let errSecOCSPResponseNonceMismatch: OSStatus = -67646
/// Code signing encountered an incorrect certificate chain length. Value: `-67647`.
public let errSecCodeSigningBadCertChainLength: OSStatus = -67647
/// Code signing found no basic constraints. Value: `-67648`.
public let errSecCodeSigningNoBasicConstraints: OSStatus = -67648
/// Code signing encountered an incorrect path length constraint. Value: `-67649`.
public let errSecCodeSigningBadPathLengthConstraint: OSStatus = -67649
/// Code signing found no extended key usage. Value: `-67650`.
public let errSecCodeSigningNoExtendedKeyUsage: OSStatus = -67650
/// Code signing indicated use of a development-only certificate. Value: `-67651`.
public let errSecCodeSigningDevelopment: OSStatus = -67651
/// Resource signing has encountered an incorrect certificate chain length. Value: `-67652`.
public let errSecResourceSignBadCertChainLength: OSStatus = -67652
/// Resource signing has encountered an error in the extended key usage. Value: `-67653`.
public let errSecResourceSignBadExtKeyUsage: OSStatus = -67653
/// The trust setting for this policy was set to Deny. Value: `-67654`.
public let errSecTrustSettingDeny: OSStatus = -67654
/// An invalid certificate subject name was encountered. Value: `-67655`.
public let errSecInvalidSubjectName: OSStatus = -67655
/// An unknown qualified certificate statement was encountered. Value: `-67656`.
public let errSecUnknownQualifiedCertStatement: OSStatus = -67656
/// Declared in SecBase.h without a message. Value: `-67657`.
public let errSecMobileMeRequestQueued: OSStatus = -67657
/// Declared in SecBase.h without a message. Value: `-67658`.
public let errSecMobileMeRequestRedirected: OSStatus = -67658
/// Declared in SecBase.h without a message. Value: `-67659`.
public let errSecMobileMeServerError: OSStatus = -67659
/// Declared in SecBase.h without a message. Value: `-67660`.
public let errSecMobileMeServerNotAvailable: OSStatus = -67660
/// Declared in SecBase.h without a message. Value: `-67661`.
public let errSecMobileMeServerAlreadyExists: OSStatus = -67661
/// Declared in SecBase.h without a message. Value: `-67662`.
public let errSecMobileMeServerServiceErr: OSStatus = -67662
/// Declared in SecBase.h without a message. Value: `-67663`.
public let errSecMobileMeRequestAlreadyPending: OSStatus = -67663
/// Declared in SecBase.h without a message. Value: `-67664`.
public let errSecMobileMeNoRequestPending: OSStatus = -67664
/// Declared in SecBase.h without a message. Value: `-67665`.
public let errSecMobileMeCSRVerifyFailure: OSStatus = -67665
/// Declared in SecBase.h without a message. Value: `-67666`.
public let errSecMobileMeFailedConsistencyCheck: OSStatus = -67666
/// A function was called without initializing CSSM. Value: `-67667`.
public let errSecNotInitialized: OSStatus = -67667
/// The CSSM handle does not match with the service type. Value: `-67668`.
public let errSecInvalidHandleUsage: OSStatus = -67668
/// A reference to the calling module was not found in the list of authorized callers. Value: `-67669`.
public let errSecPVCReferentNotFound: OSStatus = -67669
/// A function address was not within the verified module. Value: `-67670`.
public let errSecFunctionIntegrityFail: OSStatus = -67670
/// An internal error has occurred. Value: `-67671`.
public let errSecInternalError: OSStatus = -67671
/// A memory error has occurred. Value: `-67672`.
public let errSecMemoryError: OSStatus = -67672
/// Invalid data was encountered. Value: `-67673`.
public let errSecInvalidData: OSStatus = -67673
/// A Module Directory Service error has occurred. Value: `-67674`.
public let errSecMDSError: OSStatus = -67674
/// An invalid pointer was encountered. Value: `-67675`.
public let errSecInvalidPointer: OSStatus = -67675
/// Self-check has failed. Value: `-67676`.
public let errSecSelfCheckFailed: OSStatus = -67676
/// A function has failed. Value: `-67677`.
public let errSecFunctionFailed: OSStatus = -67677
/// A module manifest verification failure has occurred. Value: `-67678`.
public let errSecModuleManifestVerifyFailed: OSStatus = -67678
/// An invalid GUID was encountered. Value: `-67679`.
public let errSecInvalidGUID: OSStatus = -67679
/// An invalid handle was encountered. Value: `-67680`.
public let errSecInvalidHandle: OSStatus = -67680
/// An invalid DB list was encountered. Value: `-67681`.
public let errSecInvalidDBList: OSStatus = -67681
/// An invalid passthrough ID was encountered. Value: `-67682`.
public let errSecInvalidPassthroughID: OSStatus = -67682
/// An invalid network address was encountered. Value: `-67683`.
public let errSecInvalidNetworkAddress: OSStatus = -67683
/// The certificate revocation list is already signed. Value: `-67684`.
public let errSecCRLAlreadySigned: OSStatus = -67684
/// An invalid number of fields were encountered. Value: `-67685`.
public let errSecInvalidNumberOfFields: OSStatus = -67685
/// A verification failure occurred. Value: `-67686`.
public let errSecVerificationFailure: OSStatus = -67686
/// An unknown tag was encountered. Value: `-67687`.
public let errSecUnknownTag: OSStatus = -67687
/// An invalid signature was encountered. Value: `-67688`.
public let errSecInvalidSignature: OSStatus = -67688
/// An invalid name was encountered. Value: `-67689`.
public let errSecInvalidName: OSStatus = -67689
/// An invalid certificate reference was encountered. Value: `-67690`.
public let errSecInvalidCertificateRef: OSStatus = -67690
/// An invalid certificate group was encountered. Value: `-67691`.
public let errSecInvalidCertificateGroup: OSStatus = -67691
/// The specified tag was not found. Value: `-67692`.
public let errSecTagNotFound: OSStatus = -67692
/// The specified query was not valid. Value: `-67693`.
public let errSecInvalidQuery: OSStatus = -67693
/// An invalid value was detected. Value: `-67694`.
public let errSecInvalidValue: OSStatus = -67694
/// A callback has failed. Value: `-67695`.
public let errSecCallbackFailed: OSStatus = -67695
/// An ACL delete operation has failed. Value: `-67696`.
public let errSecACLDeleteFailed: OSStatus = -67696
/// An ACL replace operation has failed. Value: `-67697`.
public let errSecACLReplaceFailed: OSStatus = -67697
/// An ACL add operation has failed. Value: `-67698`.
public let errSecACLAddFailed: OSStatus = -67698
/// An ACL change operation has failed. Value: `-67699`.
public let errSecACLChangeFailed: OSStatus = -67699
/// Invalid access credentials were encountered. Value: `-67700`.
public let errSecInvalidAccessCredentials: OSStatus = -67700
/// An invalid record was encountered. Value: `-67701`.
public let errSecInvalidRecord: OSStatus = -67701
/// An invalid ACL was encountered. Value: `-67702`.
public let errSecInvalidACL: OSStatus = -67702
/// An invalid sample value was encountered. Value: `-67703`.
public let errSecInvalidSampleValue: OSStatus = -67703
/// An incompatible version was encountered. Value: `-67704`.
public let errSecIncompatibleVersion: OSStatus = -67704
/// The privilege was not granted. Value: `-67705`.
public let errSecPrivilegeNotGranted: OSStatus = -67705
/// An invalid scope was encountered. Value: `-67706`.
public let errSecInvalidScope: OSStatus = -67706
/// The PVC is already configured. Value: `-67707`.
public let errSecPVCAlreadyConfigured: OSStatus = -67707
/// An invalid PVC was encountered. Value: `-67708`.
public let errSecInvalidPVC: OSStatus = -67708
/// The EMM load has failed. Value: `-67709`.
public let errSecEMMLoadFailed: OSStatus = -67709
/// The EMM unload has failed. Value: `-67710`.
public let errSecEMMUnloadFailed: OSStatus = -67710
/// The add-in load operation has failed. Value: `-67711`.
public let errSecAddinLoadFailed: OSStatus = -67711
/// An invalid key was encountered. Value: `-67712`.
public let errSecInvalidKeyRef: OSStatus = -67712
/// An invalid key hierarchy was encountered. Value: `-67713`.
public let errSecInvalidKeyHierarchy: OSStatus = -67713
/// The add-in unload operation has failed. Value: `-67714`.
public let errSecAddinUnloadFailed: OSStatus = -67714
/// A library reference was not found. Value: `-67715`.
public let errSecLibraryReferenceNotFound: OSStatus = -67715
/// An invalid add-in function table was encountered. Value: `-67716`.
public let errSecInvalidAddinFunctionTable: OSStatus = -67716
/// An invalid service mask was encountered. Value: `-67717`.
public let errSecInvalidServiceMask: OSStatus = -67717
/// A module was not loaded. Value: `-67718`.
public let errSecModuleNotLoaded: OSStatus = -67718
/// An invalid subservice ID was encountered. Value: `-67719`.
public let errSecInvalidSubServiceID: OSStatus = -67719
/// An attribute was not in the context. Value: `-67720`.
public let errSecAttributeNotInContext: OSStatus = -67720
/// A module failed to initialize. Value: `-67721`.
public let errSecModuleManagerInitializeFailed: OSStatus = -67721
/// A module was not found. Value: `-67722`.
public let errSecModuleManagerNotFound: OSStatus = -67722
/// An event notification callback was not found. Value: `-67723`.
public let errSecEventNotificationCallbackNotFound: OSStatus = -67723
/// An input length error was encountered. Value: `-67724`.
public let errSecInputLengthError: OSStatus = -67724
/// An output length error was encountered. Value: `-67725`.
public let errSecOutputLengthError: OSStatus = -67725
/// The privilege is not supported. Value: `-67726`.
public let errSecPrivilegeNotSupported: OSStatus = -67726
/// A device error was encountered. Value: `-67727`.
public let errSecDeviceError: OSStatus = -67727
/// The CSP handle was busy. Value: `-67728`.
public let errSecAttachHandleBusy: OSStatus = -67728
/// You are not logged in. Value: `-67729`.
public let errSecNotLoggedIn: OSStatus = -67729
/// An algorithm mismatch was encountered. Value: `-67730`.
public let errSecAlgorithmMismatch: OSStatus = -67730
/// The key usage is incorrect. Value: `-67731`.
public let errSecKeyUsageIncorrect: OSStatus = -67731
/// The key blob type is incorrect. Value: `-67732`.
public let errSecKeyBlobTypeIncorrect: OSStatus = -67732
/// The key header is inconsistent. Value: `-67733`.
public let errSecKeyHeaderInconsistent: OSStatus = -67733
/// The key header format is not supported. Value: `-67734`.
public let errSecUnsupportedKeyFormat: OSStatus = -67734
/// The key size is not supported. Value: `-67735`.
public let errSecUnsupportedKeySize: OSStatus = -67735
/// The key usage mask is not valid. Value: `-67736`.
public let errSecInvalidKeyUsageMask: OSStatus = -67736
/// The key usage mask is not supported. Value: `-67737`.
public let errSecUnsupportedKeyUsageMask: OSStatus = -67737
/// The key attribute mask is not valid. Value: `-67738`.
public let errSecInvalidKeyAttributeMask: OSStatus = -67738
/// The key attribute mask is not supported. Value: `-67739`.
public let errSecUnsupportedKeyAttributeMask: OSStatus = -67739
/// The key label is not valid. Value: `-67740`.
public let errSecInvalidKeyLabel: OSStatus = -67740
/// The key label is not supported. Value: `-67741`.
public let errSecUnsupportedKeyLabel: OSStatus = -67741
/// The key format is not valid. Value: `-67742`.
public let errSecInvalidKeyFormat: OSStatus = -67742
/// The vector of buffers is not supported. Value: `-67743`.
public let errSecUnsupportedVectorOfBuffers: OSStatus = -67743
/// The input vector is not valid. Value: `-67744`.
public let errSecInvalidInputVector: OSStatus = -67744
/// The output vector is not valid. Value: `-67745`.
public let errSecInvalidOutputVector: OSStatus = -67745
/// An invalid context was encountered. Value: `-67746`.
public let errSecInvalidContext: OSStatus = -67746
/// An invalid algorithm was encountered. Value: `-67747`.
public let errSecInvalidAlgorithm: OSStatus = -67747
/// A key attribute was not valid. Value: `-67748`.
public let errSecInvalidAttributeKey: OSStatus = -67748
/// A key attribute was missing. Value: `-67749`.
public let errSecMissingAttributeKey: OSStatus = -67749
/// An init vector attribute was not valid. Value: `-67750`.
public let errSecInvalidAttributeInitVector: OSStatus = -67750
/// An init vector attribute was missing. Value: `-67751`.
public let errSecMissingAttributeInitVector: OSStatus = -67751
/// A salt attribute was not valid. Value: `-67752`.
public let errSecInvalidAttributeSalt: OSStatus = -67752
/// A salt attribute was missing. Value: `-67753`.
public let errSecMissingAttributeSalt: OSStatus = -67753
/// A padding attribute was not valid. Value: `-67754`.
public let errSecInvalidAttributePadding: OSStatus = -67754
/// A padding attribute was missing. Value: `-67755`.
public let errSecMissingAttributePadding: OSStatus = -67755
/// A random number attribute was not valid. Value: `-67756`.
public let errSecInvalidAttributeRandom: OSStatus = -67756
/// A random number attribute was missing. Value: `-67757`.
public let errSecMissingAttributeRandom: OSStatus = -67757
/// A seed attribute was not valid. Value: `-67758`.
public let errSecInvalidAttributeSeed: OSStatus = -67758
/// A seed attribute was missing. Value: `-67759`.
public let errSecMissingAttributeSeed: OSStatus = -67759
/// A passphrase attribute was not valid. Value: `-67760`.
public let errSecInvalidAttributePassphrase: OSStatus = -67760
/// A passphrase attribute was missing. Value: `-67761`.
public let errSecMissingAttributePassphrase: OSStatus = -67761
/// A key length attribute was not valid. Value: `-67762`.
public let errSecInvalidAttributeKeyLength: OSStatus = -67762
/// A key length attribute was missing. Value: `-67763`.
public let errSecMissingAttributeKeyLength: OSStatus = -67763
/// A block size attribute was not valid. Value: `-67764`.
public let errSecInvalidAttributeBlockSize: OSStatus = -67764
/// A block size attribute was missing. Value: `-67765`.
public let errSecMissingAttributeBlockSize: OSStatus = -67765
/// An output size attribute was not valid. Value: `-67766`.
public let errSecInvalidAttributeOutputSize: OSStatus = -67766
/// An output size attribute was missing. Value: `-67767`.
public let errSecMissingAttributeOutputSize: OSStatus = -67767
/// The number of rounds attribute was not valid. Value: `-67768`.
public let errSecInvalidAttributeRounds: OSStatus = -67768
/// The number of rounds attribute was missing. Value: `-67769`.
public let errSecMissingAttributeRounds: OSStatus = -67769
/// An algorithm parameters attribute was not valid. Value: `-67770`.
public let errSecInvalidAlgorithmParms: OSStatus = -67770
/// An algorithm parameters attribute was missing. Value: `-67771`.
public let errSecMissingAlgorithmParms: OSStatus = -67771
/// A label attribute was not valid. Value: `-67772`.
public let errSecInvalidAttributeLabel: OSStatus = -67772
/// A label attribute was missing. Value: `-67773`.
public let errSecMissingAttributeLabel: OSStatus = -67773
/// A key type attribute was not valid. Value: `-67774`.
public let errSecInvalidAttributeKeyType: OSStatus = -67774
/// A key type attribute was missing. Value: `-67775`.
public let errSecMissingAttributeKeyType: OSStatus = -67775
/// A mode attribute was not valid. Value: `-67776`.
public let errSecInvalidAttributeMode: OSStatus = -67776
/// A mode attribute was missing. Value: `-67777`.
public let errSecMissingAttributeMode: OSStatus = -67777
/// An effective bits attribute was not valid. Value: `-67778`.
public let errSecInvalidAttributeEffectiveBits: OSStatus = -67778
/// An effective bits attribute was missing. Value: `-67779`.
public let errSecMissingAttributeEffectiveBits: OSStatus = -67779
/// A start date attribute was not valid. Value: `-67780`.
public let errSecInvalidAttributeStartDate: OSStatus = -67780
/// A start date attribute was missing. Value: `-67781`.
public let errSecMissingAttributeStartDate: OSStatus = -67781
/// An end date attribute was not valid. Value: `-67782`.
public let errSecInvalidAttributeEndDate: OSStatus = -67782
/// An end date attribute was missing. Value: `-67783`.
public let errSecMissingAttributeEndDate: OSStatus = -67783
/// A version attribute was not valid. Value: `-67784`.
public let errSecInvalidAttributeVersion: OSStatus = -67784
/// A version attribute was missing. Value: `-67785`.
public let errSecMissingAttributeVersion: OSStatus = -67785
/// A prime attribute was not valid. Value: `-67786`.
public let errSecInvalidAttributePrime: OSStatus = -67786
/// A prime attribute was missing. Value: `-67787`.
public let errSecMissingAttributePrime: OSStatus = -67787
/// A base attribute was not valid. Value: `-67788`.
public let errSecInvalidAttributeBase: OSStatus = -67788
/// A base attribute was missing. Value: `-67789`.
public let errSecMissingAttributeBase: OSStatus = -67789
/// A subprime attribute was not valid. Value: `-67790`.
public let errSecInvalidAttributeSubprime: OSStatus = -67790
/// A subprime attribute was missing. Value: `-67791`.
public let errSecMissingAttributeSubprime: OSStatus = -67791
/// An iteration count attribute was not valid. Value: `-67792`.
public let errSecInvalidAttributeIterationCount: OSStatus = -67792
/// An iteration count attribute was missing. Value: `-67793`.
public let errSecMissingAttributeIterationCount: OSStatus = -67793
/// A database handle attribute was not valid. Value: `-67794`.
public let errSecInvalidAttributeDLDBHandle: OSStatus = -67794
/// A database handle attribute was missing. Value: `-67795`.
public let errSecMissingAttributeDLDBHandle: OSStatus = -67795
/// An access credentials attribute was not valid. Value: `-67796`.
public let errSecInvalidAttributeAccessCredentials: OSStatus = -67796
/// An access credentials attribute was missing. Value: `-67797`.
public let errSecMissingAttributeAccessCredentials: OSStatus = -67797
/// A public key format attribute was not valid. Value: `-67798`.
public let errSecInvalidAttributePublicKeyFormat: OSStatus = -67798
/// A public key format attribute was missing. Value: `-67799`.
public let errSecMissingAttributePublicKeyFormat: OSStatus = -67799
/// A private key format attribute was not valid. Value: `-67800`.
public let errSecInvalidAttributePrivateKeyFormat: OSStatus = -67800
/// A private key format attribute was missing. Value: `-67801`.
public let errSecMissingAttributePrivateKeyFormat: OSStatus = -67801
/// A symmetric key format attribute was not valid. Value: `-67802`.
public let errSecInvalidAttributeSymmetricKeyFormat: OSStatus = -67802
/// A symmetric key format attribute was missing. Value: `-67803`.
public let errSecMissingAttributeSymmetricKeyFormat: OSStatus = -67803
/// A wrapped key format attribute was not valid. Value: `-67804`.
public let errSecInvalidAttributeWrappedKeyFormat: OSStatus = -67804
/// A wrapped key format attribute was missing. Value: `-67805`.
public let errSecMissingAttributeWrappedKeyFormat: OSStatus = -67805
/// A staged operation is in progress. Value: `-67806`.
public let errSecStagedOperationInProgress: OSStatus = -67806
/// A staged operation was not started. Value: `-67807`.
public let errSecStagedOperationNotStarted: OSStatus = -67807
/// A cryptographic verification failure has occurred. Value: `-67808`.
public let errSecVerifyFailed: OSStatus = -67808
/// The query size is unknown. Value: `-67809`.
public let errSecQuerySizeUnknown: OSStatus = -67809
/// A block size mismatch occurred. Value: `-67810`.
public let errSecBlockSizeMismatch: OSStatus = -67810
/// The public key was inconsistent. Value: `-67811`.
public let errSecPublicKeyInconsistent: OSStatus = -67811
/// A device verification failure has occurred. Value: `-67812`.
public let errSecDeviceVerifyFailed: OSStatus = -67812
/// An invalid login name was detected. Value: `-67813`.
public let errSecInvalidLoginName: OSStatus = -67813
/// The user is already logged in. Value: `-67814`.
public let errSecAlreadyLoggedIn: OSStatus = -67814
/// An invalid digest algorithm was detected. Value: `-67815`.
public let errSecInvalidDigestAlgorithm: OSStatus = -67815
/// An invalid CRL group was detected. Value: `-67816`.
public let errSecInvalidCRLGroup: OSStatus = -67816
/// The certificate cannot operate. Value: `-67817`.
public let errSecCertificateCannotOperate: OSStatus = -67817
/// An expired certificate was detected. Value: `-67818`.
public let errSecCertificateExpired: OSStatus = -67818
/// The certificate is not yet valid. Value: `-67819`.
public let errSecCertificateNotValidYet: OSStatus = -67819
/// The certificate was revoked. Value: `-67820`.
public let errSecCertificateRevoked: OSStatus = -67820
/// The certificate was suspended. Value: `-67821`.
public let errSecCertificateSuspended: OSStatus = -67821
/// Insufficient credentials were detected. Value: `-67822`.
public let errSecInsufficientCredentials: OSStatus = -67822
/// The action was not valid. Value: `-67823`.
public let errSecInvalidAction: OSStatus = -67823
/// The authority was not valid. Value: `-67824`.
public let errSecInvalidAuthority: OSStatus = -67824
/// A verify action has failed. Value: `-67825`.
public let errSecVerifyActionFailed: OSStatus = -67825
/// The certificate authority was not valid. Value: `-67826`.
public let errSecInvalidCertAuthority: OSStatus = -67826
/// The CRL authority was not valid. Value: `-67827`.
public let errSecInvalidCRLAuthority: OSStatus = -67827
/// The old spelling of `errSecInvalidCRLAuthority`, deprecated by Apple. Value: `-67827`.
public let errSecInvaldCRLAuthority: OSStatus = errSecInvalidCRLAuthority
/// The CRL encoding was not valid. Value: `-67828`.
public let errSecInvalidCRLEncoding: OSStatus = -67828
/// The CRL type was not valid. Value: `-67829`.
public let errSecInvalidCRLType: OSStatus = -67829
/// The CRL was not valid. Value: `-67830`.
public let errSecInvalidCRL: OSStatus = -67830
/// The form type was not valid. Value: `-67831`.
public let errSecInvalidFormType: OSStatus = -67831
/// The ID was not valid. Value: `-67832`.
public let errSecInvalidID: OSStatus = -67832
/// The identifier was not valid. Value: `-67833`.
public let errSecInvalidIdentifier: OSStatus = -67833
/// The index was not valid. Value: `-67834`.
public let errSecInvalidIndex: OSStatus = -67834
/// The policy identifiers are not valid. Value: `-67835`.
public let errSecInvalidPolicyIdentifiers: OSStatus = -67835
/// The time specified was not valid. Value: `-67836`.
public let errSecInvalidTimeString: OSStatus = -67836
/// The trust policy reason was not valid. Value: `-67837`.
public let errSecInvalidReason: OSStatus = -67837
/// The request inputs are not valid. Value: `-67838`.
public let errSecInvalidRequestInputs: OSStatus = -67838
/// The response vector was not valid. Value: `-67839`.
public let errSecInvalidResponseVector: OSStatus = -67839
/// The stop-on policy was not valid. Value: `-67840`.
public let errSecInvalidStopOnPolicy: OSStatus = -67840
/// The tuple was not valid. Value: `-67841`.
public let errSecInvalidTuple: OSStatus = -67841
/// Multiple values are not supported. Value: `-67842`.
public let errSecMultipleValuesUnsupported: OSStatus = -67842
/// The certificate was not trusted. Value: `-67843`.
public let errSecNotTrusted: OSStatus = -67843
/// No default authority was detected. Value: `-67844`.
public let errSecNoDefaultAuthority: OSStatus = -67844
/// The trust policy had a rejected form. Value: `-67845`.
public let errSecRejectedForm: OSStatus = -67845
/// The request was lost. Value: `-67846`.
public let errSecRequestLost: OSStatus = -67846
/// The request was rejected. Value: `-67847`.
public let errSecRequestRejected: OSStatus = -67847
/// The address type is not supported. Value: `-67848`.
public let errSecUnsupportedAddressType: OSStatus = -67848
/// The service is not supported. Value: `-67849`.
public let errSecUnsupportedService: OSStatus = -67849
/// The tuple group was not valid. Value: `-67850`.
public let errSecInvalidTupleGroup: OSStatus = -67850
/// The base ACLs are not valid. Value: `-67851`.
public let errSecInvalidBaseACLs: OSStatus = -67851
/// The tuple credentials are not valid. Value: `-67852`.
public let errSecInvalidTupleCredentials: OSStatus = -67852
/// The old spelling of `errSecInvalidTupleCredentials`, deprecated by Apple. Value: `-67852`.
public let errSecInvalidTupleCredendtials: OSStatus = errSecInvalidTupleCredentials
/// The encoding was not valid. Value: `-67853`.
public let errSecInvalidEncoding: OSStatus = -67853
/// The validity period was not valid. Value: `-67854`.
public let errSecInvalidValidityPeriod: OSStatus = -67854
/// The requestor was not valid. Value: `-67855`.
public let errSecInvalidRequestor: OSStatus = -67855
/// The request descriptor was not valid. Value: `-67856`.
public let errSecRequestDescriptor: OSStatus = -67856
/// The bundle information was not valid. Value: `-67857`.
public let errSecInvalidBundleInfo: OSStatus = -67857
/// The CRL index was not valid. Value: `-67858`.
public let errSecInvalidCRLIndex: OSStatus = -67858
/// No field values were detected. Value: `-67859`.
public let errSecNoFieldValues: OSStatus = -67859
/// The field format is not supported. Value: `-67860`.
public let errSecUnsupportedFieldFormat: OSStatus = -67860
/// The index information is not supported. Value: `-67861`.
public let errSecUnsupportedIndexInfo: OSStatus = -67861
/// The locality is not supported. Value: `-67862`.
public let errSecUnsupportedLocality: OSStatus = -67862
/// The number of attributes is not supported. Value: `-67863`.
public let errSecUnsupportedNumAttributes: OSStatus = -67863
/// The number of indexes is not supported. Value: `-67864`.
public let errSecUnsupportedNumIndexes: OSStatus = -67864
/// The number of record types is not supported. Value: `-67865`.
public let errSecUnsupportedNumRecordTypes: OSStatus = -67865
/// Too many fields were specified. Value: `-67866`.
public let errSecFieldSpecifiedMultiple: OSStatus = -67866
/// The field format was incompatible. Value: `-67867`.
public let errSecIncompatibleFieldFormat: OSStatus = -67867
/// The parsing module was not valid. Value: `-67868`.
public let errSecInvalidParsingModule: OSStatus = -67868
/// The database is locked. Value: `-67869`.
public let errSecDatabaseLocked: OSStatus = -67869
/// The data store is open. Value: `-67870`.
public let errSecDatastoreIsOpen: OSStatus = -67870
/// A missing value was detected. Value: `-67871`.
public let errSecMissingValue: OSStatus = -67871
/// The query limits are not supported. Value: `-67872`.
public let errSecUnsupportedQueryLimits: OSStatus = -67872
/// The number of selection predicates is not supported. Value: `-67873`.
public let errSecUnsupportedNumSelectionPreds: OSStatus = -67873
/// The operator is not supported. Value: `-67874`.
public let errSecUnsupportedOperator: OSStatus = -67874
/// The database location is not valid. Value: `-67875`.
public let errSecInvalidDBLocation: OSStatus = -67875
/// The access request is not valid. Value: `-67876`.
public let errSecInvalidAccessRequest: OSStatus = -67876
/// The index information is not valid. Value: `-67877`.
public let errSecInvalidIndexInfo: OSStatus = -67877
/// The new owner is not valid. Value: `-67878`.
public let errSecInvalidNewOwner: OSStatus = -67878
/// The modify mode is not valid. Value: `-67879`.
public let errSecInvalidModifyMode: OSStatus = -67879
/// A required certificate extension is missing. Value: `-67880`.
public let errSecMissingRequiredExtension: OSStatus = -67880
/// The extended key usage extension was not marked critical. Value: `-67881`.
public let errSecExtendedKeyUsageNotCritical: OSStatus = -67881
/// A timestamp was expected but was not found. Value: `-67882`.
public let errSecTimestampMissing: OSStatus = -67882
/// The timestamp was not valid. Value: `-67883`.
public let errSecTimestampInvalid: OSStatus = -67883
/// The timestamp was not trusted. Value: `-67884`.
public let errSecTimestampNotTrusted: OSStatus = -67884
/// The timestamp service is not available. Value: `-67885`.
public let errSecTimestampServiceNotAvailable: OSStatus = -67885
/// An unrecognized or unsupported Algorithm Identifier in timestamp. Value: `-67886`.
public let errSecTimestampBadAlg: OSStatus = -67886
/// The timestamp transaction is not permitted or supported. Value: `-67887`.
public let errSecTimestampBadRequest: OSStatus = -67887
/// The timestamp data submitted has the wrong format. Value: `-67888`.
public let errSecTimestampBadDataFormat: OSStatus = -67888
/// The time source for the Timestamp Authority is not available. Value: `-67889`.
public let errSecTimestampTimeNotAvailable: OSStatus = -67889
/// The requested policy is not supported by the Timestamp Authority. Value: `-67890`.
public let errSecTimestampUnacceptedPolicy: OSStatus = -67890
/// The requested extension is not supported by the Timestamp Authority. Value: `-67891`.
public let errSecTimestampUnacceptedExtension: OSStatus = -67891
/// The additional information requested is not available. Value: `-67892`.
public let errSecTimestampAddInfoNotAvailable: OSStatus = -67892
/// The timestamp request cannot be handled due to system failure. Value: `-67893`.
public let errSecTimestampSystemFailure: OSStatus = -67893
/// A signing time was expected but was not found. Value: `-67894`.
public let errSecSigningTimeMissing: OSStatus = -67894
/// A timestamp transaction was rejected. Value: `-67895`.
public let errSecTimestampRejection: OSStatus = -67895
/// A timestamp transaction is waiting. Value: `-67896`.
public let errSecTimestampWaiting: OSStatus = -67896
/// A timestamp authority revocation warning was issued. Value: `-67897`.
public let errSecTimestampRevocationWarning: OSStatus = -67897
/// A timestamp authority revocation notification was issued. Value: `-67898`.
public let errSecTimestampRevocationNotification: OSStatus = -67898
/// The requested policy is not allowed for this certificate. Value: `-67899`.
public let errSecCertificatePolicyNotAllowed: OSStatus = -67899
/// The requested name is not allowed for this certificate. Value: `-67900`.
public let errSecCertificateNameNotAllowed: OSStatus = -67900
/// The validity period in the certificate exceeds the maximum allowed. Value: `-67901`.
public let errSecCertificateValidityPeriodTooLong: OSStatus = -67901
/// The verified certificate is a CA rather than an end-entity. Value: `-67902`.
public let errSecCertificateIsCA: OSStatus = -67902
/// The certificate contains multiple extensions with the same extension ID. Value: `-67903`.
public let errSecCertificateDuplicateExtension: OSStatus = -67903

/// Every code of SecBase.h's "Security Error Codes" with its name and message (`nil` where
/// the header gives none), for SecCopyErrorMessageString.
enum SecBaseStatusTable {
    static let entries: [OSStatus: (name: String, message: String?)] = [
        0: ("errSecSuccess", "No error."),
        -4: ("errSecUnimplemented", "Function or operation not implemented."),
        -34: ("errSecDiskFull", "The disk is full."),
        -36: ("errSecIO", "I/O error."),
        -49: ("errSecOpWr", "File already open with write permission."),
        -50: ("errSecParam", "One or more parameters passed to a function were not valid."),
        -61: ("errSecWrPerm", "Write permissions error."),
        -108: ("errSecAllocate", "Failed to allocate memory."),
        -128: ("errSecUserCanceled", "User canceled the operation."),
        -909: ("errSecBadReq", "Bad parameter or invalid state for operation."),
        -2070: ("errSecInternalComponent", nil),
        -4960: ("errSecCoreFoundationUnknown", nil),
        -34018: ("errSecMissingEntitlement", "A required entitlement isn't present."),
        -34020: ("errSecRestrictedAPI", "Client is restricted and is not permitted to perform this operation."),
        -25291: ("errSecNotAvailable", "No keychain is available. You may need to restart your computer."),
        -25292: ("errSecReadOnly", "This keychain cannot be modified."),
        -25293: ("errSecAuthFailed", "The user name or passphrase you entered is not correct."),
        -25294: ("errSecNoSuchKeychain", "The specified keychain could not be found."),
        -25295: ("errSecInvalidKeychain", "The specified keychain is not a valid keychain file."),
        -25296: ("errSecDuplicateKeychain", "A keychain with the same name already exists."),
        -25297: ("errSecDuplicateCallback", "The specified callback function is already installed."),
        -25298: ("errSecInvalidCallback", "The specified callback function is not valid."),
        -25299: ("errSecDuplicateItem", "The specified item already exists in the keychain."),
        -25300: ("errSecItemNotFound", "The specified item could not be found in the keychain."),
        -25301: ("errSecBufferTooSmall", "There is not enough memory available to use the specified item."),
        -25302: ("errSecDataTooLarge", "This item contains information which is too large or in a format that cannot be displayed."),
        -25303: ("errSecNoSuchAttr", "The specified attribute does not exist."),
        -25304: ("errSecInvalidItemRef", "The specified item is no longer valid. It may have been deleted from the keychain."),
        -25305: ("errSecInvalidSearchRef", "Unable to search the current keychain."),
        -25306: ("errSecNoSuchClass", "The specified item does not appear to be a valid keychain item."),
        -25307: ("errSecNoDefaultKeychain", "A default keychain could not be found."),
        -25308: ("errSecInteractionNotAllowed", "User interaction is not allowed."),
        -25309: ("errSecReadOnlyAttr", "The specified attribute could not be modified."),
        -25310: ("errSecWrongSecVersion", "This keychain was created by a different version of the system software and cannot be opened."),
        -25311: ("errSecKeySizeNotAllowed", "This item specifies a key size which is too large or too small."),
        -25312: ("errSecNoStorageModule", "A required component (data storage module) could not be loaded. You may need to restart your computer."),
        -25313: ("errSecNoCertificateModule", "A required component (certificate module) could not be loaded. You may need to restart your computer."),
        -25314: ("errSecNoPolicyModule", "A required component (policy module) could not be loaded. You may need to restart your computer."),
        -25315: ("errSecInteractionRequired", "User interaction is required, but is currently not allowed."),
        -25316: ("errSecDataNotAvailable", "The contents of this item cannot be retrieved."),
        -25317: ("errSecDataNotModifiable", "The contents of this item cannot be modified."),
        -25318: ("errSecCreateChainFailed", "One or more certificates required to validate this certificate cannot be found."),
        -25319: ("errSecInvalidPrefsDomain", "The specified preferences domain is not valid."),
        -25320: ("errSecInDarkWake", "In dark wake, no UI possible"),
        -25240: ("errSecACLNotSimple", "The specified access control list is not in standard (simple) form."),
        -25241: ("errSecPolicyNotFound", "The specified policy cannot be found."),
        -25242: ("errSecInvalidTrustSetting", "The specified trust setting is invalid."),
        -25243: ("errSecNoAccessForItem", "The specified item has no access control."),
        -25244: ("errSecInvalidOwnerEdit", "Invalid attempt to change the owner of this item."),
        -25245: ("errSecTrustNotAvailable", "No trust results are available."),
        -25256: ("errSecUnsupportedFormat", "Import/Export format unsupported."),
        -25257: ("errSecUnknownFormat", "Unknown format in import."),
        -25258: ("errSecKeyIsSensitive", "Key material must be wrapped for export."),
        -25259: ("errSecMultiplePrivKeys", "An attempt was made to import multiple private keys."),
        -25260: ("errSecPassphraseRequired", "Passphrase is required for import/export."),
        -25261: ("errSecInvalidPasswordRef", "The password reference was invalid."),
        -25262: ("errSecInvalidTrustSettings", "The Trust Settings Record was corrupted."),
        -25263: ("errSecNoTrustSettings", "No Trust Settings were found."),
        -25264: ("errSecPkcs12VerifyFailure", "MAC verification failed during PKCS12 import (wrong password?)"),
        -26267: ("errSecNotSigner", "A certificate was not signed by its proposed parent."),
        -26275: ("errSecDecode", "Unable to decode the provided data."),
        -67585: ("errSecServiceNotAvailable", "The required service is not available."),
        -67586: ("errSecInsufficientClientID", "The client ID is not correct."),
        -67587: ("errSecDeviceReset", "A device reset has occurred."),
        -67588: ("errSecDeviceFailed", "A device failure has occurred."),
        -67589: ("errSecAppleAddAppACLSubject", "Adding an application ACL subject failed."),
        -67590: ("errSecApplePublicKeyIncomplete", "The public key is incomplete."),
        -67591: ("errSecAppleSignatureMismatch", "A signature mismatch has occurred."),
        -67592: ("errSecAppleInvalidKeyStartDate", "The specified key has an invalid start date."),
        -67593: ("errSecAppleInvalidKeyEndDate", "The specified key has an invalid end date."),
        -67594: ("errSecConversionError", "A conversion error has occurred."),
        -67595: ("errSecAppleSSLv2Rollback", "A SSLv2 rollback error has occurred."),
        -67596: ("errSecQuotaExceeded", "The quota was exceeded."),
        -67597: ("errSecFileTooBig", "The file is too big."),
        -67598: ("errSecInvalidDatabaseBlob", "The specified database has an invalid blob."),
        -67599: ("errSecInvalidKeyBlob", "The specified database has an invalid key blob."),
        -67600: ("errSecIncompatibleDatabaseBlob", "The specified database has an incompatible blob."),
        -67601: ("errSecIncompatibleKeyBlob", "The specified database has an incompatible key blob."),
        -67602: ("errSecHostNameMismatch", "A host name mismatch has occurred."),
        -67603: ("errSecUnknownCriticalExtensionFlag", "There is an unknown critical extension flag."),
        -67604: ("errSecNoBasicConstraints", "No basic constraints were found."),
        -67605: ("errSecNoBasicConstraintsCA", "No basic CA constraints were found."),
        -67606: ("errSecInvalidAuthorityKeyID", "The authority key ID is not valid."),
        -67607: ("errSecInvalidSubjectKeyID", "The subject key ID is not valid."),
        -67608: ("errSecInvalidKeyUsageForPolicy", "The key usage is not valid for the specified policy."),
        -67609: ("errSecInvalidExtendedKeyUsage", "The extended key usage is not valid."),
        -67610: ("errSecInvalidIDLinkage", "The ID linkage is not valid."),
        -67611: ("errSecPathLengthConstraintExceeded", "The path length constraint was exceeded."),
        -67612: ("errSecInvalidRoot", "The root or anchor certificate is not valid."),
        -67613: ("errSecCRLExpired", "The CRL has expired."),
        -67614: ("errSecCRLNotValidYet", "The CRL is not yet valid."),
        -67615: ("errSecCRLNotFound", "The CRL was not found."),
        -67616: ("errSecCRLServerDown", "The CRL server is down."),
        -67617: ("errSecCRLBadURI", "The CRL has a bad Uniform Resource Identifier."),
        -67618: ("errSecUnknownCertExtension", "An unknown certificate extension was encountered."),
        -67619: ("errSecUnknownCRLExtension", "An unknown CRL extension was encountered."),
        -67620: ("errSecCRLNotTrusted", "The CRL is not trusted."),
        -67621: ("errSecCRLPolicyFailed", "The CRL policy failed."),
        -67622: ("errSecIDPFailure", "The issuing distribution point was not valid."),
        -67623: ("errSecSMIMEEmailAddressesNotFound", "An email address mismatch was encountered."),
        -67624: ("errSecSMIMEBadExtendedKeyUsage", "The appropriate extended key usage for SMIME was not found."),
        -67625: ("errSecSMIMEBadKeyUsage", "The key usage is not compatible with SMIME."),
        -67626: ("errSecSMIMEKeyUsageNotCritical", "The key usage extension is not marked as critical."),
        -67627: ("errSecSMIMENoEmailAddress", "No email address was found in the certificate."),
        -67628: ("errSecSMIMESubjAltNameNotCritical", "The subject alternative name extension is not marked as critical."),
        -67629: ("errSecSSLBadExtendedKeyUsage", "The appropriate extended key usage for SSL was not found."),
        -67630: ("errSecOCSPBadResponse", "The OCSP response was incorrect or could not be parsed."),
        -67631: ("errSecOCSPBadRequest", "The OCSP request was incorrect or could not be parsed."),
        -67632: ("errSecOCSPUnavailable", "OCSP service is unavailable."),
        -67633: ("errSecOCSPStatusUnrecognized", "The OCSP server did not recognize this certificate."),
        -67634: ("errSecEndOfData", "An end-of-data was detected."),
        -67635: ("errSecIncompleteCertRevocationCheck", "An incomplete certificate revocation check occurred."),
        -67636: ("errSecNetworkFailure", "A network failure occurred."),
        -67637: ("errSecOCSPNotTrustedToAnchor", "The OCSP response was not trusted to a root or anchor certificate."),
        -67638: ("errSecRecordModified", "The record was modified."),
        -67639: ("errSecOCSPSignatureError", "The OCSP response had an invalid signature."),
        -67640: ("errSecOCSPNoSigner", "The OCSP response had no signer."),
        -67641: ("errSecOCSPResponderMalformedReq", "The OCSP responder was given a malformed request."),
        -67642: ("errSecOCSPResponderInternalError", "The OCSP responder encountered an internal error."),
        -67643: ("errSecOCSPResponderTryLater", "The OCSP responder is busy, try again later."),
        -67644: ("errSecOCSPResponderSignatureRequired", "The OCSP responder requires a signature."),
        -67645: ("errSecOCSPResponderUnauthorized", "The OCSP responder rejected this request as unauthorized."),
        -67646: ("errSecOCSPResponseNonceMismatch", "The OCSP response nonce did not match the request."),
        -67647: ("errSecCodeSigningBadCertChainLength", "Code signing encountered an incorrect certificate chain length."),
        -67648: ("errSecCodeSigningNoBasicConstraints", "Code signing found no basic constraints."),
        -67649: ("errSecCodeSigningBadPathLengthConstraint", "Code signing encountered an incorrect path length constraint."),
        -67650: ("errSecCodeSigningNoExtendedKeyUsage", "Code signing found no extended key usage."),
        -67651: ("errSecCodeSigningDevelopment", "Code signing indicated use of a development-only certificate."),
        -67652: ("errSecResourceSignBadCertChainLength", "Resource signing has encountered an incorrect certificate chain length."),
        -67653: ("errSecResourceSignBadExtKeyUsage", "Resource signing has encountered an error in the extended key usage."),
        -67654: ("errSecTrustSettingDeny", "The trust setting for this policy was set to Deny."),
        -67655: ("errSecInvalidSubjectName", "An invalid certificate subject name was encountered."),
        -67656: ("errSecUnknownQualifiedCertStatement", "An unknown qualified certificate statement was encountered."),
        -67657: ("errSecMobileMeRequestQueued", nil),
        -67658: ("errSecMobileMeRequestRedirected", nil),
        -67659: ("errSecMobileMeServerError", nil),
        -67660: ("errSecMobileMeServerNotAvailable", nil),
        -67661: ("errSecMobileMeServerAlreadyExists", nil),
        -67662: ("errSecMobileMeServerServiceErr", nil),
        -67663: ("errSecMobileMeRequestAlreadyPending", nil),
        -67664: ("errSecMobileMeNoRequestPending", nil),
        -67665: ("errSecMobileMeCSRVerifyFailure", nil),
        -67666: ("errSecMobileMeFailedConsistencyCheck", nil),
        -67667: ("errSecNotInitialized", "A function was called without initializing CSSM."),
        -67668: ("errSecInvalidHandleUsage", "The CSSM handle does not match with the service type."),
        -67669: ("errSecPVCReferentNotFound", "A reference to the calling module was not found in the list of authorized callers."),
        -67670: ("errSecFunctionIntegrityFail", "A function address was not within the verified module."),
        -67671: ("errSecInternalError", "An internal error has occurred."),
        -67672: ("errSecMemoryError", "A memory error has occurred."),
        -67673: ("errSecInvalidData", "Invalid data was encountered."),
        -67674: ("errSecMDSError", "A Module Directory Service error has occurred."),
        -67675: ("errSecInvalidPointer", "An invalid pointer was encountered."),
        -67676: ("errSecSelfCheckFailed", "Self-check has failed."),
        -67677: ("errSecFunctionFailed", "A function has failed."),
        -67678: ("errSecModuleManifestVerifyFailed", "A module manifest verification failure has occurred."),
        -67679: ("errSecInvalidGUID", "An invalid GUID was encountered."),
        -67680: ("errSecInvalidHandle", "An invalid handle was encountered."),
        -67681: ("errSecInvalidDBList", "An invalid DB list was encountered."),
        -67682: ("errSecInvalidPassthroughID", "An invalid passthrough ID was encountered."),
        -67683: ("errSecInvalidNetworkAddress", "An invalid network address was encountered."),
        -67684: ("errSecCRLAlreadySigned", "The certificate revocation list is already signed."),
        -67685: ("errSecInvalidNumberOfFields", "An invalid number of fields were encountered."),
        -67686: ("errSecVerificationFailure", "A verification failure occurred."),
        -67687: ("errSecUnknownTag", "An unknown tag was encountered."),
        -67688: ("errSecInvalidSignature", "An invalid signature was encountered."),
        -67689: ("errSecInvalidName", "An invalid name was encountered."),
        -67690: ("errSecInvalidCertificateRef", "An invalid certificate reference was encountered."),
        -67691: ("errSecInvalidCertificateGroup", "An invalid certificate group was encountered."),
        -67692: ("errSecTagNotFound", "The specified tag was not found."),
        -67693: ("errSecInvalidQuery", "The specified query was not valid."),
        -67694: ("errSecInvalidValue", "An invalid value was detected."),
        -67695: ("errSecCallbackFailed", "A callback has failed."),
        -67696: ("errSecACLDeleteFailed", "An ACL delete operation has failed."),
        -67697: ("errSecACLReplaceFailed", "An ACL replace operation has failed."),
        -67698: ("errSecACLAddFailed", "An ACL add operation has failed."),
        -67699: ("errSecACLChangeFailed", "An ACL change operation has failed."),
        -67700: ("errSecInvalidAccessCredentials", "Invalid access credentials were encountered."),
        -67701: ("errSecInvalidRecord", "An invalid record was encountered."),
        -67702: ("errSecInvalidACL", "An invalid ACL was encountered."),
        -67703: ("errSecInvalidSampleValue", "An invalid sample value was encountered."),
        -67704: ("errSecIncompatibleVersion", "An incompatible version was encountered."),
        -67705: ("errSecPrivilegeNotGranted", "The privilege was not granted."),
        -67706: ("errSecInvalidScope", "An invalid scope was encountered."),
        -67707: ("errSecPVCAlreadyConfigured", "The PVC is already configured."),
        -67708: ("errSecInvalidPVC", "An invalid PVC was encountered."),
        -67709: ("errSecEMMLoadFailed", "The EMM load has failed."),
        -67710: ("errSecEMMUnloadFailed", "The EMM unload has failed."),
        -67711: ("errSecAddinLoadFailed", "The add-in load operation has failed."),
        -67712: ("errSecInvalidKeyRef", "An invalid key was encountered."),
        -67713: ("errSecInvalidKeyHierarchy", "An invalid key hierarchy was encountered."),
        -67714: ("errSecAddinUnloadFailed", "The add-in unload operation has failed."),
        -67715: ("errSecLibraryReferenceNotFound", "A library reference was not found."),
        -67716: ("errSecInvalidAddinFunctionTable", "An invalid add-in function table was encountered."),
        -67717: ("errSecInvalidServiceMask", "An invalid service mask was encountered."),
        -67718: ("errSecModuleNotLoaded", "A module was not loaded."),
        -67719: ("errSecInvalidSubServiceID", "An invalid subservice ID was encountered."),
        -67720: ("errSecAttributeNotInContext", "An attribute was not in the context."),
        -67721: ("errSecModuleManagerInitializeFailed", "A module failed to initialize."),
        -67722: ("errSecModuleManagerNotFound", "A module was not found."),
        -67723: ("errSecEventNotificationCallbackNotFound", "An event notification callback was not found."),
        -67724: ("errSecInputLengthError", "An input length error was encountered."),
        -67725: ("errSecOutputLengthError", "An output length error was encountered."),
        -67726: ("errSecPrivilegeNotSupported", "The privilege is not supported."),
        -67727: ("errSecDeviceError", "A device error was encountered."),
        -67728: ("errSecAttachHandleBusy", "The CSP handle was busy."),
        -67729: ("errSecNotLoggedIn", "You are not logged in."),
        -67730: ("errSecAlgorithmMismatch", "An algorithm mismatch was encountered."),
        -67731: ("errSecKeyUsageIncorrect", "The key usage is incorrect."),
        -67732: ("errSecKeyBlobTypeIncorrect", "The key blob type is incorrect."),
        -67733: ("errSecKeyHeaderInconsistent", "The key header is inconsistent."),
        -67734: ("errSecUnsupportedKeyFormat", "The key header format is not supported."),
        -67735: ("errSecUnsupportedKeySize", "The key size is not supported."),
        -67736: ("errSecInvalidKeyUsageMask", "The key usage mask is not valid."),
        -67737: ("errSecUnsupportedKeyUsageMask", "The key usage mask is not supported."),
        -67738: ("errSecInvalidKeyAttributeMask", "The key attribute mask is not valid."),
        -67739: ("errSecUnsupportedKeyAttributeMask", "The key attribute mask is not supported."),
        -67740: ("errSecInvalidKeyLabel", "The key label is not valid."),
        -67741: ("errSecUnsupportedKeyLabel", "The key label is not supported."),
        -67742: ("errSecInvalidKeyFormat", "The key format is not valid."),
        -67743: ("errSecUnsupportedVectorOfBuffers", "The vector of buffers is not supported."),
        -67744: ("errSecInvalidInputVector", "The input vector is not valid."),
        -67745: ("errSecInvalidOutputVector", "The output vector is not valid."),
        -67746: ("errSecInvalidContext", "An invalid context was encountered."),
        -67747: ("errSecInvalidAlgorithm", "An invalid algorithm was encountered."),
        -67748: ("errSecInvalidAttributeKey", "A key attribute was not valid."),
        -67749: ("errSecMissingAttributeKey", "A key attribute was missing."),
        -67750: ("errSecInvalidAttributeInitVector", "An init vector attribute was not valid."),
        -67751: ("errSecMissingAttributeInitVector", "An init vector attribute was missing."),
        -67752: ("errSecInvalidAttributeSalt", "A salt attribute was not valid."),
        -67753: ("errSecMissingAttributeSalt", "A salt attribute was missing."),
        -67754: ("errSecInvalidAttributePadding", "A padding attribute was not valid."),
        -67755: ("errSecMissingAttributePadding", "A padding attribute was missing."),
        -67756: ("errSecInvalidAttributeRandom", "A random number attribute was not valid."),
        -67757: ("errSecMissingAttributeRandom", "A random number attribute was missing."),
        -67758: ("errSecInvalidAttributeSeed", "A seed attribute was not valid."),
        -67759: ("errSecMissingAttributeSeed", "A seed attribute was missing."),
        -67760: ("errSecInvalidAttributePassphrase", "A passphrase attribute was not valid."),
        -67761: ("errSecMissingAttributePassphrase", "A passphrase attribute was missing."),
        -67762: ("errSecInvalidAttributeKeyLength", "A key length attribute was not valid."),
        -67763: ("errSecMissingAttributeKeyLength", "A key length attribute was missing."),
        -67764: ("errSecInvalidAttributeBlockSize", "A block size attribute was not valid."),
        -67765: ("errSecMissingAttributeBlockSize", "A block size attribute was missing."),
        -67766: ("errSecInvalidAttributeOutputSize", "An output size attribute was not valid."),
        -67767: ("errSecMissingAttributeOutputSize", "An output size attribute was missing."),
        -67768: ("errSecInvalidAttributeRounds", "The number of rounds attribute was not valid."),
        -67769: ("errSecMissingAttributeRounds", "The number of rounds attribute was missing."),
        -67770: ("errSecInvalidAlgorithmParms", "An algorithm parameters attribute was not valid."),
        -67771: ("errSecMissingAlgorithmParms", "An algorithm parameters attribute was missing."),
        -67772: ("errSecInvalidAttributeLabel", "A label attribute was not valid."),
        -67773: ("errSecMissingAttributeLabel", "A label attribute was missing."),
        -67774: ("errSecInvalidAttributeKeyType", "A key type attribute was not valid."),
        -67775: ("errSecMissingAttributeKeyType", "A key type attribute was missing."),
        -67776: ("errSecInvalidAttributeMode", "A mode attribute was not valid."),
        -67777: ("errSecMissingAttributeMode", "A mode attribute was missing."),
        -67778: ("errSecInvalidAttributeEffectiveBits", "An effective bits attribute was not valid."),
        -67779: ("errSecMissingAttributeEffectiveBits", "An effective bits attribute was missing."),
        -67780: ("errSecInvalidAttributeStartDate", "A start date attribute was not valid."),
        -67781: ("errSecMissingAttributeStartDate", "A start date attribute was missing."),
        -67782: ("errSecInvalidAttributeEndDate", "An end date attribute was not valid."),
        -67783: ("errSecMissingAttributeEndDate", "An end date attribute was missing."),
        -67784: ("errSecInvalidAttributeVersion", "A version attribute was not valid."),
        -67785: ("errSecMissingAttributeVersion", "A version attribute was missing."),
        -67786: ("errSecInvalidAttributePrime", "A prime attribute was not valid."),
        -67787: ("errSecMissingAttributePrime", "A prime attribute was missing."),
        -67788: ("errSecInvalidAttributeBase", "A base attribute was not valid."),
        -67789: ("errSecMissingAttributeBase", "A base attribute was missing."),
        -67790: ("errSecInvalidAttributeSubprime", "A subprime attribute was not valid."),
        -67791: ("errSecMissingAttributeSubprime", "A subprime attribute was missing."),
        -67792: ("errSecInvalidAttributeIterationCount", "An iteration count attribute was not valid."),
        -67793: ("errSecMissingAttributeIterationCount", "An iteration count attribute was missing."),
        -67794: ("errSecInvalidAttributeDLDBHandle", "A database handle attribute was not valid."),
        -67795: ("errSecMissingAttributeDLDBHandle", "A database handle attribute was missing."),
        -67796: ("errSecInvalidAttributeAccessCredentials", "An access credentials attribute was not valid."),
        -67797: ("errSecMissingAttributeAccessCredentials", "An access credentials attribute was missing."),
        -67798: ("errSecInvalidAttributePublicKeyFormat", "A public key format attribute was not valid."),
        -67799: ("errSecMissingAttributePublicKeyFormat", "A public key format attribute was missing."),
        -67800: ("errSecInvalidAttributePrivateKeyFormat", "A private key format attribute was not valid."),
        -67801: ("errSecMissingAttributePrivateKeyFormat", "A private key format attribute was missing."),
        -67802: ("errSecInvalidAttributeSymmetricKeyFormat", "A symmetric key format attribute was not valid."),
        -67803: ("errSecMissingAttributeSymmetricKeyFormat", "A symmetric key format attribute was missing."),
        -67804: ("errSecInvalidAttributeWrappedKeyFormat", "A wrapped key format attribute was not valid."),
        -67805: ("errSecMissingAttributeWrappedKeyFormat", "A wrapped key format attribute was missing."),
        -67806: ("errSecStagedOperationInProgress", "A staged operation is in progress."),
        -67807: ("errSecStagedOperationNotStarted", "A staged operation was not started."),
        -67808: ("errSecVerifyFailed", "A cryptographic verification failure has occurred."),
        -67809: ("errSecQuerySizeUnknown", "The query size is unknown."),
        -67810: ("errSecBlockSizeMismatch", "A block size mismatch occurred."),
        -67811: ("errSecPublicKeyInconsistent", "The public key was inconsistent."),
        -67812: ("errSecDeviceVerifyFailed", "A device verification failure has occurred."),
        -67813: ("errSecInvalidLoginName", "An invalid login name was detected."),
        -67814: ("errSecAlreadyLoggedIn", "The user is already logged in."),
        -67815: ("errSecInvalidDigestAlgorithm", "An invalid digest algorithm was detected."),
        -67816: ("errSecInvalidCRLGroup", "An invalid CRL group was detected."),
        -67817: ("errSecCertificateCannotOperate", "The certificate cannot operate."),
        -67818: ("errSecCertificateExpired", "An expired certificate was detected."),
        -67819: ("errSecCertificateNotValidYet", "The certificate is not yet valid."),
        -67820: ("errSecCertificateRevoked", "The certificate was revoked."),
        -67821: ("errSecCertificateSuspended", "The certificate was suspended."),
        -67822: ("errSecInsufficientCredentials", "Insufficient credentials were detected."),
        -67823: ("errSecInvalidAction", "The action was not valid."),
        -67824: ("errSecInvalidAuthority", "The authority was not valid."),
        -67825: ("errSecVerifyActionFailed", "A verify action has failed."),
        -67826: ("errSecInvalidCertAuthority", "The certificate authority was not valid."),
        -67827: ("errSecInvalidCRLAuthority", "The CRL authority was not valid."),
        -67828: ("errSecInvalidCRLEncoding", "The CRL encoding was not valid."),
        -67829: ("errSecInvalidCRLType", "The CRL type was not valid."),
        -67830: ("errSecInvalidCRL", "The CRL was not valid."),
        -67831: ("errSecInvalidFormType", "The form type was not valid."),
        -67832: ("errSecInvalidID", "The ID was not valid."),
        -67833: ("errSecInvalidIdentifier", "The identifier was not valid."),
        -67834: ("errSecInvalidIndex", "The index was not valid."),
        -67835: ("errSecInvalidPolicyIdentifiers", "The policy identifiers are not valid."),
        -67836: ("errSecInvalidTimeString", "The time specified was not valid."),
        -67837: ("errSecInvalidReason", "The trust policy reason was not valid."),
        -67838: ("errSecInvalidRequestInputs", "The request inputs are not valid."),
        -67839: ("errSecInvalidResponseVector", "The response vector was not valid."),
        -67840: ("errSecInvalidStopOnPolicy", "The stop-on policy was not valid."),
        -67841: ("errSecInvalidTuple", "The tuple was not valid."),
        -67842: ("errSecMultipleValuesUnsupported", "Multiple values are not supported."),
        -67843: ("errSecNotTrusted", "The certificate was not trusted."),
        -67844: ("errSecNoDefaultAuthority", "No default authority was detected."),
        -67845: ("errSecRejectedForm", "The trust policy had a rejected form."),
        -67846: ("errSecRequestLost", "The request was lost."),
        -67847: ("errSecRequestRejected", "The request was rejected."),
        -67848: ("errSecUnsupportedAddressType", "The address type is not supported."),
        -67849: ("errSecUnsupportedService", "The service is not supported."),
        -67850: ("errSecInvalidTupleGroup", "The tuple group was not valid."),
        -67851: ("errSecInvalidBaseACLs", "The base ACLs are not valid."),
        -67852: ("errSecInvalidTupleCredentials", "The tuple credentials are not valid."),
        -67853: ("errSecInvalidEncoding", "The encoding was not valid."),
        -67854: ("errSecInvalidValidityPeriod", "The validity period was not valid."),
        -67855: ("errSecInvalidRequestor", "The requestor was not valid."),
        -67856: ("errSecRequestDescriptor", "The request descriptor was not valid."),
        -67857: ("errSecInvalidBundleInfo", "The bundle information was not valid."),
        -67858: ("errSecInvalidCRLIndex", "The CRL index was not valid."),
        -67859: ("errSecNoFieldValues", "No field values were detected."),
        -67860: ("errSecUnsupportedFieldFormat", "The field format is not supported."),
        -67861: ("errSecUnsupportedIndexInfo", "The index information is not supported."),
        -67862: ("errSecUnsupportedLocality", "The locality is not supported."),
        -67863: ("errSecUnsupportedNumAttributes", "The number of attributes is not supported."),
        -67864: ("errSecUnsupportedNumIndexes", "The number of indexes is not supported."),
        -67865: ("errSecUnsupportedNumRecordTypes", "The number of record types is not supported."),
        -67866: ("errSecFieldSpecifiedMultiple", "Too many fields were specified."),
        -67867: ("errSecIncompatibleFieldFormat", "The field format was incompatible."),
        -67868: ("errSecInvalidParsingModule", "The parsing module was not valid."),
        -67869: ("errSecDatabaseLocked", "The database is locked."),
        -67870: ("errSecDatastoreIsOpen", "The data store is open."),
        -67871: ("errSecMissingValue", "A missing value was detected."),
        -67872: ("errSecUnsupportedQueryLimits", "The query limits are not supported."),
        -67873: ("errSecUnsupportedNumSelectionPreds", "The number of selection predicates is not supported."),
        -67874: ("errSecUnsupportedOperator", "The operator is not supported."),
        -67875: ("errSecInvalidDBLocation", "The database location is not valid."),
        -67876: ("errSecInvalidAccessRequest", "The access request is not valid."),
        -67877: ("errSecInvalidIndexInfo", "The index information is not valid."),
        -67878: ("errSecInvalidNewOwner", "The new owner is not valid."),
        -67879: ("errSecInvalidModifyMode", "The modify mode is not valid."),
        -67880: ("errSecMissingRequiredExtension", "A required certificate extension is missing."),
        -67881: ("errSecExtendedKeyUsageNotCritical", "The extended key usage extension was not marked critical."),
        -67882: ("errSecTimestampMissing", "A timestamp was expected but was not found."),
        -67883: ("errSecTimestampInvalid", "The timestamp was not valid."),
        -67884: ("errSecTimestampNotTrusted", "The timestamp was not trusted."),
        -67885: ("errSecTimestampServiceNotAvailable", "The timestamp service is not available."),
        -67886: ("errSecTimestampBadAlg", "An unrecognized or unsupported Algorithm Identifier in timestamp."),
        -67887: ("errSecTimestampBadRequest", "The timestamp transaction is not permitted or supported."),
        -67888: ("errSecTimestampBadDataFormat", "The timestamp data submitted has the wrong format."),
        -67889: ("errSecTimestampTimeNotAvailable", "The time source for the Timestamp Authority is not available."),
        -67890: ("errSecTimestampUnacceptedPolicy", "The requested policy is not supported by the Timestamp Authority."),
        -67891: ("errSecTimestampUnacceptedExtension", "The requested extension is not supported by the Timestamp Authority."),
        -67892: ("errSecTimestampAddInfoNotAvailable", "The additional information requested is not available."),
        -67893: ("errSecTimestampSystemFailure", "The timestamp request cannot be handled due to system failure."),
        -67894: ("errSecSigningTimeMissing", "A signing time was expected but was not found."),
        -67895: ("errSecTimestampRejection", "A timestamp transaction was rejected."),
        -67896: ("errSecTimestampWaiting", "A timestamp transaction is waiting."),
        -67897: ("errSecTimestampRevocationWarning", "A timestamp authority revocation warning was issued."),
        -67898: ("errSecTimestampRevocationNotification", "A timestamp authority revocation notification was issued."),
        -67899: ("errSecCertificatePolicyNotAllowed", "The requested policy is not allowed for this certificate."),
        -67900: ("errSecCertificateNameNotAllowed", "The requested name is not allowed for this certificate."),
        -67901: ("errSecCertificateValidityPeriodTooLong", "The validity period in the certificate exceeds the maximum allowed."),
        -67902: ("errSecCertificateIsCA", "The verified certificate is a CA rather than an end-entity."),
        -67903: ("errSecCertificateDuplicateExtension", "The certificate contains multiple extensions with the same extension ID."),
    ]
}
#endif
