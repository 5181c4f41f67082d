import Foundation
import Security

let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                            kSecAttrService as String: "api", kSecReturnData as String: true]
var result: CFTypeRef?
let status = SecItemCopyMatching(query as CFDictionary, &result)
let url = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: "group.com.example.notes")
