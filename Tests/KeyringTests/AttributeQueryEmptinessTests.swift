import Foundation
@testable import Keyring
import XCTest

/// `givesNothing` of the key and certificate attribute queries is written field by field (a
/// password's lookup asks it of every opened item): it must agree with comparing against the
/// empty query, for every field, and name every field the query has.
final class AttributeQueryEmptinessTests: XCTestCase {
    private let someBytes = Data([1])

    private var keyQueriesGivingOneAttribute: [KeyAttributeQuery] {
        [
            KeyAttributeQuery(keyClass: .private), KeyAttributeQuery(keyType: "73"), KeyAttributeQuery(sizeInBits: 256),
            KeyAttributeQuery(effectiveSize: 256), KeyAttributeQuery(applicationLabel: someBytes), KeyAttributeQuery(applicationTag: someBytes),
            KeyAttributeQuery(tokenID: ""), KeyAttributeQuery(isPermanent: false), KeyAttributeQuery(requiredUsage: .decrypt),
            KeyAttributeQuery(refusedUsage: .decrypt),
        ]
    }

    private var certificateQueriesGivingOneAttribute: [CertificateAttributeQuery] {
        [
            CertificateAttributeQuery(certificateType: 1), CertificateAttributeQuery(certificateEncoding: 3),
            CertificateAttributeQuery(subject: someBytes), CertificateAttributeQuery(issuer: someBytes),
            CertificateAttributeQuery(serialNumber: someBytes), CertificateAttributeQuery(subjectKeyID: someBytes),
            CertificateAttributeQuery(publicKeyHash: someBytes),
        ]
    }

    func testTheEmptyKeyQueryGivesNothing() {
        XCTAssertTrue(KeyAttributeQuery().givesNothing)
    }

    func testAKeyQueryGivingAnyOneAttributeGivesSomething() {
        for query in keyQueriesGivingOneAttribute {
            XCTAssertNotEqual(query, KeyAttributeQuery())
            XCTAssertFalse(query.givesNothing, "\(query)")
        }
    }

    func testEveryFieldOfTheKeyQueryIsAmongThoseChecked() {
        // A field added to the query fails this until givesNothing and the list above have it.
        XCTAssertEqual(Mirror(reflecting: KeyAttributeQuery()).children.count, keyQueriesGivingOneAttribute.count)
    }

    func testTheEmptyCertificateQueryGivesNothing() {
        XCTAssertTrue(CertificateAttributeQuery().givesNothing)
    }

    func testACertificateQueryGivingAnyOneAttributeGivesSomething() {
        for query in certificateQueriesGivingOneAttribute {
            XCTAssertNotEqual(query, CertificateAttributeQuery())
            XCTAssertFalse(query.givesNothing, "\(query)")
        }
    }

    func testEveryFieldOfTheCertificateQueryIsAmongThoseChecked() {
        XCTAssertEqual(Mirror(reflecting: CertificateAttributeQuery()).children.count, certificateQueriesGivingOneAttribute.count)
    }
}
