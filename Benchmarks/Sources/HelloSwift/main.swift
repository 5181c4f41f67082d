// The cold-start floor: a Swift program that imports nothing beyond the standard library.
print("hello")
