// A Swift program that loads all of Foundation (on Linux: swift-corelibs-foundation and ICU),
// the start-up cost a process pays before doing anything with it.
import Foundation

print("hello \(Date().timeIntervalSince1970 > 0)")
