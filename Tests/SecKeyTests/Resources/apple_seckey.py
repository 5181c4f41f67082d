#!/usr/bin/env python3
"""An independent implementation of what GroupVault's SecKey computes, on Python's `cryptography`.

SecKeyTests runs it to check the Swift implementation against another one, in both directions:
signatures, RSA encryption and Apple's ECIES made by one side are verified or decrypted by the
other. It reads a JSON list of requests on stdin and writes a JSON list of answers on stdout,
one per request: {"out": "<hex>"} or {"valid": true|false} or {"error": "<message>"}.

Apple's ECIES, as docs/SECKEY.md describes it (written here from that description, not from the
Swift code): an ephemeral key pair on the recipient's curve; Z = ECDH x coordinate; the ANSI
X9.63 KDF with the algorithm's hash over Z with the ephemeral public key (04 || X || Y) as shared
info gives a 16-byte AES key for P-256, 32 bytes for P-384/P-521, then, in the variable-IV
variants, a 16-byte IV (else the IV is sixteen zero bytes); AES-GCM without additional data and a
16-byte tag; the output is ephemeral public key || ciphertext || tag.
"""
import json
import sys

try:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec, padding
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    from cryptography.hazmat.primitives.kdf.x963kdf import X963KDF
except ImportError as error:  # SecKeyTests turns this into a failure that says how to install it
    print(json.dumps({"missing": str(error)}))
    sys.exit(3)

CURVES = {256: ec.SECP256R1(), 384: ec.SECP384R1(), 521: ec.SECP521R1()}
HASHES = {"sha1": hashes.SHA1, "sha256": hashes.SHA256, "sha384": hashes.SHA384, "sha512": hashes.SHA512}


def coordinate_bytes(bits):
    return (bits + 7) // 8


def ec_private(bits, x963):
    """Apple's private representation 04 || X || Y || K."""
    k = int.from_bytes(x963[1 + 2 * coordinate_bytes(bits):], "big")
    return ec.derive_private_key(k, CURVES[bits])


def ec_public(bits, x963):
    return ec.EllipticCurvePublicKey.from_encoded_point(CURVES[bits], x963)


def x963_public(key):
    return key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


def ecies_key_and_iv(bits, shared, ephemeral_public, hash_name, variable_iv):
    key_length = 16 if bits <= 256 else 32
    derived = X963KDF(algorithm=HASHES[hash_name](), length=key_length + (16 if variable_iv else 0),
                      sharedinfo=ephemeral_public).derive(shared)
    iv = derived[key_length:] if variable_iv else bytes(16)
    return derived[:key_length], iv


def ecies_encrypt(bits, recipient_x963, hash_name, variable_iv, plaintext):
    recipient = ec_public(bits, recipient_x963)
    ephemeral = ec.generate_private_key(CURVES[bits])
    ephemeral_public = x963_public(ephemeral.public_key())
    shared = ephemeral.exchange(ec.ECDH(), recipient)
    key, iv = ecies_key_and_iv(bits, shared, ephemeral_public, hash_name, variable_iv)
    return ephemeral_public + AESGCM(key).encrypt(iv, plaintext, None)


def ecies_decrypt(bits, private_x963, hash_name, variable_iv, ciphertext):
    private = ec_private(bits, private_x963)
    point_length = 1 + 2 * coordinate_bytes(bits)
    ephemeral_public = ciphertext[:point_length]
    shared = private.exchange(ec.ECDH(), ec_public(bits, ephemeral_public))
    key, iv = ecies_key_and_iv(bits, shared, ephemeral_public, hash_name, variable_iv)
    return AESGCM(key).decrypt(iv, ciphertext[point_length:], None)


def rsa_padding(request, hash_name):
    scheme = request["padding"]
    if scheme == "pkcs1v15":
        return padding.PKCS1v15()
    if scheme == "pss":  # Apple: MGF1 with the same hash, salt as long as the digest
        return padding.PSS(mgf=padding.MGF1(HASHES[hash_name]()), salt_length=HASHES[hash_name].digest_size)
    if scheme == "oaep":
        return padding.OAEP(mgf=padding.MGF1(HASHES[hash_name]()), algorithm=HASHES[hash_name](), label=None)
    raise ValueError("unknown padding " + scheme)


def answer(request):
    op = request["op"]
    data = bytes.fromhex(request.get("data", ""))
    key = bytes.fromhex(request.get("key", ""))
    hash_name = request.get("hash", "sha256")
    bits = request.get("bits", 256)
    if op == "ecdsa_sign":
        return {"out": ec_private(bits, key).sign(data, ec.ECDSA(HASHES[hash_name]())).hex()}
    if op == "ecdsa_verify":
        try:
            ec_public(bits, key).verify(bytes.fromhex(request["signature"]), data, ec.ECDSA(HASHES[hash_name]()))
            return {"valid": True}
        except InvalidSignature:
            return {"valid": False}
    if op == "ecies_encrypt":
        return {"out": ecies_encrypt(bits, key, hash_name, request["variable_iv"], data).hex()}
    if op == "ecies_decrypt":
        return {"out": ecies_decrypt(bits, key, hash_name, request["variable_iv"], data).hex()}
    if op == "ecdh":
        shared = ec_private(bits, key).exchange(ec.ECDH(), ec_public(bits, bytes.fromhex(request["peer"])))
        if "kdf_size" in request:  # the ecdhKeyExchange...X963SHA... variants
            shared = X963KDF(algorithm=HASHES[hash_name](), length=request["kdf_size"],
                             sharedinfo=bytes.fromhex(request["shared_info"])).derive(shared)
        return {"out": shared.hex()}
    if op == "rsa_sign":
        private = serialization.load_der_private_key(key, password=None)
        return {"out": private.sign(data, rsa_padding(request, hash_name), HASHES[hash_name]()).hex()}
    if op == "rsa_verify":
        public = serialization.load_der_public_key(key)
        try:
            public.verify(bytes.fromhex(request["signature"]), data, rsa_padding(request, hash_name), HASHES[hash_name]())
            return {"valid": True}
        except InvalidSignature:
            return {"valid": False}
    if op == "rsa_encrypt":
        return {"out": serialization.load_der_public_key(key).encrypt(data, rsa_padding(request, hash_name)).hex()}
    if op == "rsa_decrypt":
        private = serialization.load_der_private_key(key, password=None)
        return {"out": private.decrypt(data, rsa_padding(request, hash_name)).hex()}
    raise ValueError("unknown op " + op)


def main():
    answers = []
    for request in json.load(sys.stdin):
        try:
            answers.append(answer(request))
        except Exception as error:  # reported per request; the Swift test names the request
            answers.append({"error": "%s: %s" % (type(error).__name__, error)})
    json.dump(answers, sys.stdout)


if __name__ == "__main__":
    main()
