#!/usr/bin/env python3
"""An independent implementation of GroupSync's wire protocol, written from docs/SYNC.md and
docs/FORMAT.md alone (standard library + libsodium through ctypes, psql for the server).

    python3 groupsync_independent.py --url URL --group GROUP --store STORE \
        --key ID:HEX [--key ID:HEX ...] COMMAND [ARGS]

COMMAND is one of
    read                   every row of the space, one JSON object per line, sorted by key
                           (rows refused by a check of SYNC.md section 5 follow, sorted by name)
    write KEY VALUE_JSON   seal VALUE_JSON for KEY at the server's sequence + 1 and push it
                           (VALUE_JSON "-": read it from standard input, for values over the
                           128 KiB an argument can hold)
    remove KEY             the same, for a removal
    snapshot               the space's snapshot (SYNC.md section 6, "Snapshots"), opened, each entry's blob
                           judged as a row and its shown key and value checked against it;
                           printed as `read` prints rows (exit 1 for a snapshot refused, 4
                           for none on the server)

Test aid (not part of the fixed interface): `--base N` before COMMAND makes `write`/`remove`
seal at N + 1 and send the compare-and-swap with $base = N instead of reading the server's
current sequence, so a stale base can be shown to store nothing (exit 3).

Exit status: 0 done; 1 failure; 2 bad arguments; 3 the compare-and-swap stored nothing; 4 no
snapshot.
"""

import base64
import ctypes
import ctypes.util
import hashlib
import json
import re
import struct
import subprocess
import sys
import time

# ---------------------------------------------------------------------------------------------
# Errors and exit statuses


class UsageError(Exception):
    """Anything wrong with the arguments: exit 2."""


class Failure(Exception):
    """Any other failure: exit 1."""


class Refusal(Exception):
    """A row refused by a reader's check (SYNC.md section 5); `code` is the doc's code name."""

    def __init__(self, code, why):
        super().__init__(why)
        self.code = code


# ---------------------------------------------------------------------------------------------
# libsodium through ctypes


def load_sodium():
    path = ctypes.util.find_library("sodium") or "libsodium.so.23"
    try:
        lib = ctypes.CDLL(path)
    except OSError as error:
        raise Failure("cannot load libsodium (%s): %s" % (path, error))
    if lib.sodium_init() < 0:
        raise Failure("sodium_init failed")
    lib.crypto_kdf_derive_from_key.argtypes = [
        ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint64, ctypes.c_char_p, ctypes.c_char_p]
    lib.crypto_aead_xchacha20poly1305_ietf_encrypt.argtypes = [
        ctypes.c_char_p, ctypes.POINTER(ctypes.c_ulonglong), ctypes.c_char_p, ctypes.c_ulonglong,
        ctypes.c_char_p, ctypes.c_ulonglong, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p]
    lib.crypto_aead_xchacha20poly1305_ietf_decrypt.argtypes = [
        ctypes.c_char_p, ctypes.POINTER(ctypes.c_ulonglong), ctypes.c_void_p, ctypes.c_char_p,
        ctypes.c_ulonglong, ctypes.c_char_p, ctypes.c_ulonglong, ctypes.c_char_p, ctypes.c_char_p]
    lib.randombytes_buf.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    return lib


SODIUM = None


def sodium():
    global SODIUM
    if SODIUM is None:
        SODIUM = load_sodium()
    return SODIUM


def kdf(key, subkey_id, context):
    """crypto_kdf_derive_from_key with a 32-byte subkey (SYNC.md section 4)."""
    out = ctypes.create_string_buffer(32)
    if sodium().crypto_kdf_derive_from_key(out, 32, subkey_id, context, key) != 0:
        raise Failure("crypto_kdf_derive_from_key failed")
    return out.raw


def seal(key, nonce, plaintext, aad):
    """crypto_aead_xchacha20poly1305_ietf_encrypt: ciphertext then the 16-byte tag."""
    out = ctypes.create_string_buffer(len(plaintext) + 16)
    out_len = ctypes.c_ulonglong(0)
    if sodium().crypto_aead_xchacha20poly1305_ietf_encrypt(
            out, ctypes.byref(out_len), plaintext, len(plaintext), aad, len(aad),
            None, nonce, key) != 0:
        raise Failure("crypto_aead_xchacha20poly1305_ietf_encrypt failed")
    return out.raw[:out_len.value]


def open_sealed(key, nonce, sealed, aad):
    """crypto_aead_xchacha20poly1305_ietf_decrypt; None when the tag does not verify."""
    out = ctypes.create_string_buffer(max(len(sealed) - 16, 1))
    out_len = ctypes.c_ulonglong(0)
    if sodium().crypto_aead_xchacha20poly1305_ietf_decrypt(
            out, ctypes.byref(out_len), None, sealed, len(sealed), aad, len(aad),
            nonce, key) != 0:
        return None
    return out.raw[:out_len.value]


def random_bytes(count):
    out = ctypes.create_string_buffer(count)
    sodium().randombytes_buf(out, count)
    return out.raw


def blake2b_256(data, key=b""):
    """BLAKE2b-256, keyed when `key` is given (crypto_generichash with 32 bytes out)."""
    return hashlib.blake2b(data, digest_size=32, key=key).digest()


# ---------------------------------------------------------------------------------------------
# Names the server sees (SYNC.md section 4)


def frame(*parts):
    """frame(parts) = for each part: u64be(len(part)) || part."""
    out = b""
    for part in parts:
        if isinstance(part, str):
            part = part.encode("utf-8")
        out += struct.pack(">Q", len(part)) + part
    return out


class Names:
    def __init__(self, key1, group, store):
        # N = kdf(K1, id 1), context "GVSYNC01" (the state key S = kdf(K1, id 2) is not needed:
        # this client keeps no state).
        self.naming_key = kdf(key1, 1, b"GVSYNC01")
        self.space = blake2b_256(frame("space", group, store), self.naming_key)
        # channel = "gs_" + lowercase hex(space[0..<16]), 35 characters
        self.channel = "gs_" + self.space[:16].hex()

    def name(self, key):
        """name = BLAKE2b-256(key N, frame("name", space, key UTF-8))."""
        return blake2b_256(frame("name", self.space, key), self.naming_key)


# ---------------------------------------------------------------------------------------------
# JSON as Swift's JSONEncoder writes it (FORMAT.md section 2 "Payload", section 9 "Values in
# the payload JSON"): sorted keys, no whitespace, "/" escaped as "\/", non-ASCII as raw UTF-8.


def swift_json(value):
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)
    # Every "/" in json.dumps' output is inside a string, so this only escapes string contents.
    return text.replace("/", "\\/").encode("utf-8")


def reject_constant(name):
    raise ValueError("not JSON: %s" % name)


def finite_float(text):
    number = float(text)
    if number != number or number in (float("inf"), float("-inf")):
        raise ValueError("a number out of a double's range: %s" % text)
    return number


def unique_members(pairs):
    members = {}
    for name, value in pairs:
        if name in members:
            raise ValueError("the member %r appears twice" % name)
        members[name] = value
    return members


def parse_json(data):
    """JSON as a reader takes it (SYNC.md section 5, "The payload as read"): UTF-8, an optional
    leading byte order mark, no member named twice in an object, no NaN/Infinity, finite
    numbers, nothing after the value."""
    if isinstance(data, bytes):
        data = data.decode("utf-8")
    if data.startswith("\ufeff"):
        data = data[1:]
    return json.loads(data, parse_constant=reject_constant, parse_float=finite_float,
                      object_pairs_hook=unique_members)


def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value):
    return (is_int(value) or isinstance(value, float))


def check_ubiquitous_value(value, depth=0):
    """UbiquitousValue's JSON (SYNC.md section 5): one member naming the type."""
    if depth > 64:
        raise ValueError("nested too deeply")
    if not isinstance(value, dict) or len(value) != 1:
        raise ValueError("a value is an object with exactly one member naming its type")
    (kind, inner), = value.items()
    if kind == "string":
        ok = isinstance(inner, str)
    elif kind == "int":
        ok = is_int(inner) and -2 ** 63 <= inner < 2 ** 63
    elif kind == "double":
        ok = is_number(inner) or inner in ("nan", "inf", "-inf")
    elif kind == "bool":
        ok = isinstance(inner, bool)
    elif kind == "data":
        ok = isinstance(inner, str)
        if ok:
            base64.b64decode(inner, validate=True)
    elif kind == "date":
        ok = is_number(inner)
    elif kind == "array":
        ok = isinstance(inner, list)
        if ok:
            for item in inner:
                check_ubiquitous_value(item, depth + 1)
    elif kind == "dict":
        ok = isinstance(inner, dict)
        if ok:
            for item in inner.values():
                check_ubiquitous_value(item, depth + 1)
    else:
        raise ValueError("unknown value type %r" % kind)
    if not ok:
        raise ValueError("the %s member has the wrong JSON type" % kind)


def encode_value(store, value):
    """The value's bytes (SYNC.md section 5, "Value bytes")."""
    if store == "records":
        # the record's schema version (u32 big-endian) then its JSON
        return struct.pack(">I", value["schema"]) + swift_json(value["record"])
    return swift_json(value)


def decode_value(store, data):
    """Inverse of encode_value; raises ValueError when the bytes do not decode. A record whose
    JSON does not parse (or names a member twice) is refused here only because this client
    prints records as JSON: GroupSync accepts it and leaves its JSON to the reader's type
    (SYNC.md section 5)."""
    if store == "records":
        if len(data) < 4:
            raise ValueError("a record's value is shorter than its schema version")
        (schema,) = struct.unpack(">I", data[:4])
        return {"schema": schema, "record": parse_json(data[4:])}
    value = parse_json(data)
    check_ubiquitous_value(value)
    return value


# ---------------------------------------------------------------------------------------------
# The Vault blob (FORMAT.md section 2), as SYNC.md section 5 uses it

HEADER_SIZE = 72
MAX_PAYLOAD = 1048576
MAX_BLOB = HEADER_SIZE + MAX_PAYLOAD + 16  # 1048664, SYNC.md section 5 (the schema allows 1048736)


# FORMAT.md, "Record names": 1 to 128 bytes of [A-Za-z0-9._-], no leading "." and no "..".
RECORD_NAME = re.compile(r"\A(?!\.)(?!.*\.\.)[A-Za-z0-9._-]{1,128}\Z")


def record_name(name):
    """The AAD's record name: "gs-" + lowercase hex(name) (SYNC.md section 5)."""
    return ("gs-" + name.hex()).encode("ascii")


def aad_for(header, group, name):
    """AAD = header || u16(len(group)) || group || u16(len(name)) || name (FORMAT.md section 2)."""
    group_bytes = group.encode("utf-8")
    record = record_name(name)
    return (header + struct.pack(">H", len(group_bytes)) + group_bytes
            + struct.pack(">H", len(record)) + record)


def now_milliseconds():
    # issued-at: signed milliseconds since the Unix epoch, rounded to nearest (FORMAT.md section 2)
    return (time.time_ns() + 500000) // 1000000


def seal_entry(group, name, key_id, key, sequence, plaintext):
    """FORMAT.md section 2 with SYNC.md section 5's choices: flags 0, no expiry, schema 1."""
    if len(plaintext) > MAX_PAYLOAD:
        raise Failure("the payload is %d bytes, over the format's 1048576" % len(plaintext))
    nonce = random_bytes(24)
    header = (b"GVRB"                                   # magic
              + bytes([1])                              # format version 1
              + bytes([1])                              # algorithm 1: XChaCha20-Poly1305 IETF
              + struct.pack(">H", 0)                    # flags: no tombstone, no expiry
              + struct.pack(">I", key_id)               # key id: the primary key's
              + struct.pack(">Q", sequence)             # sequence
              + struct.pack(">q", now_milliseconds())   # issued-at = the writer's clock (ms)
              + struct.pack(">q", 0)                    # expires-at: none
              + struct.pack(">I", 1)                    # schema version 1
              + bytes([1])                              # payload encoding 1: UTF-8 JSON
              + b"\x00\x00\x00"                         # reserved
              + struct.pack(">I", len(plaintext) + 16)  # sealed length
              + nonce)
    assert len(header) == HEADER_SIZE
    return header + seal(key, nonce, plaintext, aad_for(header, group, name))


def open_entry(group, keys, name, blob):
    """FORMAT.md section 3, steps 2 to 4, on a blob; returns (header fields, plaintext)."""
    # Step 2: the header, in the documented order.
    if len(blob) < 5 or blob[0:4] != b"GVRB":
        raise Refusal("malformed", "empty, short or wrong magic")
    if blob[4] != 1:
        raise Refusal("unsupportedFormat", "format version %d" % blob[4])
    if len(blob) < HEADER_SIZE:
        raise Refusal("malformed", "shorter than the header")
    algorithm = blob[5]
    (flags, key_id, sequence, issued_at, expires_at, schema, encoding, sealed_length) = \
        struct.unpack(">HIQqqIB3xI", blob[6:48])
    if algorithm != 1:
        raise Refusal("unsupportedFormat", "algorithm %d" % algorithm)
    if flags & ~0x0003:
        raise Refusal("unsupportedFormat", "unknown flags 0x%04x" % flags)
    if encoding != 1:
        raise Refusal("unsupportedFormat", "payload encoding %d" % encoding)
    if blob[41:44] != b"\x00\x00\x00":
        raise Refusal("malformed", "reserved bytes are not zero")
    if not flags & 0x0002 and expires_at != 0:
        raise Refusal("malformed", "an expiry without the has-expiry flag")
    if not 16 <= sealed_length <= MAX_PAYLOAD + 16:
        raise Refusal("malformed", "sealed length %d out of bounds" % sealed_length)
    if len(blob) != HEADER_SIZE + sealed_length:
        raise Refusal("malformed", "blob of %d bytes, header says %d"
                      % (len(blob), HEADER_SIZE + sealed_length))
    # SYNC.md section 5: a synced entry never carries a tombstone or expiry flag; checked once
    # the header is read, before its key is looked up.
    if flags != 0:
        raise Refusal("invalidRecord", "a tombstone or expiry flag")
    # Step 3: the key id in the keyset (the keys given on the command line).
    key = keys.get(key_id)
    if key is None:
        raise Refusal("unknownKey", "key #%d is not in the keyset" % key_id)
    # Step 4: the AEAD, with the AAD rebuilt from the group and the row's name.
    header = blob[:HEADER_SIZE]
    plaintext = open_sealed(key, blob[48:72], blob[HEADER_SIZE:], aad_for(header, group, name))
    if plaintext is None:
        raise Refusal("authenticationFailed", "the tag does not verify")
    fields = {"flags": flags, "key_id": key_id, "sequence": sequence, "issued_at": issued_at,
              "expires_at": expires_at, "schema": schema}
    return fields, plaintext


def judge_row(names, group, store, keys, name, sequence, blob):
    """A reader opening a row checks, in order (SYNC.md section 5). Returns the opened entry."""
    if len(name) != 32 or sequence <= 0:
        raise Refusal("malformed", "name of %d bytes or sequence %d" % (len(name), sequence))
    if len(blob) > MAX_BLOB:
        raise Refusal("malformed", "blob of %d bytes" % len(blob))
    fields, plaintext = open_entry(group, keys, name, blob)
    if fields["schema"] != 1:
        raise Refusal("unsupportedSchema", "schema %d" % fields["schema"])
    # The payload: {"key": <key>, "value": <base64 of the value's bytes>}; no "value" (or a
    # "value" of null) is a removal; other members are ignored (SYNC.md section 5).
    try:
        payload = parse_json(plaintext)
        if not isinstance(payload, dict) or not isinstance(payload.get("key"), str):
            raise ValueError("no key")
        if payload.get("value") is not None:
            if not isinstance(payload["value"], str):
                raise ValueError("value is not a string")
            value_bytes = base64.b64decode(payload["value"], validate=True)
        else:
            value_bytes = None
    except (ValueError, TypeError, UnicodeDecodeError) as error:
        raise Refusal("invalidRecord", "the payload does not decode: %s" % error)
    if names.name(payload["key"]) != name:
        raise Refusal("invalidRecord", "the payload's key does not hash to the row's name")
    if fields["sequence"] != sequence:
        raise Refusal("malformed", "header sequence %d, row sequence %d"
                      % (fields["sequence"], sequence))
    # Freshness (SYNC.md section 7) for a reader that has seen nothing (seen = 0): more than
    # 2^32 above seen is untrustedSequence; there is no "below seen" or "equal" case.
    if sequence > 2 ** 32:
        raise Refusal("untrustedSequence", "sequence %d more than 2^32 above 0" % sequence)
    # Last, an entry of its store (SYNC.md section 5): GroupSync counts one that is not as
    # invalidRecord and shows its key as absent; this client prints it as refused.
    # A key-value store's key is 1 to 64 bytes of UTF-8 and its value
    # decodes as one; a record's key is a record name (FORMAT.md, "Record names") and its value
    # holds at least its schema version (SYNC.md section 5).
    if store != "records" and not 1 <= len(payload["key"].encode("utf-8")) <= 64:
        raise Refusal("invalidRecord", "a key of %d bytes" % len(payload["key"].encode("utf-8")))
    if store == "records" and not RECORD_NAME.match(payload["key"]):
        raise Refusal("invalidRecord", "the key is no record name")
    try:
        value = None if value_bytes is None else decode_value(store, value_bytes)
    except (ValueError, TypeError, UnicodeDecodeError, struct.error) as error:
        raise Refusal("invalidRecord", "the value is none of its store's: %s" % error)
    return {"key": payload["key"], "sequence": sequence, "issued_at": fields["issued_at"],
            "value": value}


# ---------------------------------------------------------------------------------------------
# The server, through psql. Only hex strings, decimal integers and the channel name (itself
# "gs_" + hex) are put into SQL text, each checked against a pattern first.

HEX = re.compile(r"\A[0-9a-f]*\Z")


def sql_hex(data):
    text = data.hex()
    assert HEX.match(text)
    return "decode('%s', 'hex')" % text


def sql_int(number):
    assert is_int(number)
    return "%d" % number


# SYNC.md section 3: the schema version this client creates and reads.
SCHEMA_VERSION = 3


class Server:
    def __init__(self, url):
        self.url = url

    def run(self, sql):
        """Run a script (on standard input, so that a 2 MiB hex blob is no argument) on a new
        connection; return its rows, each a list of fields."""
        try:
            done = subprocess.run(
                ["psql", self.url, "-X", "-q", "-At", "-F", "|", "-v", "ON_ERROR_STOP=1"],
                input=sql.encode("ascii"), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except OSError as error:
            raise Failure("cannot run psql: %s" % error)
        if done.returncode != 0:
            raise Failure("psql failed (%d): %s"
                          % (done.returncode, done.stderr.decode("utf-8", "replace").strip()))
        return [line.split("|") for line in done.stdout.decode("ascii").splitlines()]

    # SYNC.md section 6, "Session settings": a connection's first statement.
    FIRST = ("SELECT set_config('enable_bitmapscan', 'off', false), coalesce(max(version), 0) "
             "FROM groupsync_schema;\n")

    MIGRATION = """
BEGIN;
SELECT pg_advisory_xact_lock(1196839769);
CREATE TABLE IF NOT EXISTS groupsync_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
SELECT set_config('enable_bitmapscan', 'off', false), coalesce(max(version), 0) > 3 AS too_new,
       coalesce(max(version), 0) < 1 AS needs_1, coalesce(max(version), 0) < 2 AS needs_2,
       coalesce(max(version), 0) < 3 AS needs_3 FROM groupsync_schema \\gset
\\if :too_new
ROLLBACK;
SELECT 'too-new';
\\q
\\endif
\\if :needs_1
CREATE TABLE groupsync_entry (
    space bytea NOT NULL CHECK (octet_length(space) = 32),
    name bytea NOT NULL CHECK (octet_length(name) = 32),
    sequence bigint NOT NULL CHECK (sequence > 0),
    change bigint NOT NULL,
    blob bytea NOT NULL CHECK (octet_length(blob) <= 1048736),
    written_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (space, name));
CREATE SEQUENCE groupsync_change;
CREATE INDEX groupsync_entry_by_change ON groupsync_entry (space, change);
INSERT INTO groupsync_schema (version) VALUES (1);
\\endif
\\if :needs_2
CREATE TABLE groupsync_snapshot (
    space bytea PRIMARY KEY CHECK (octet_length(space) = 32),
    change bigint NOT NULL CHECK (change > 0),
    blob bytea NOT NULL CHECK (octet_length(blob) <= 67108864),
    written_at timestamptz NOT NULL DEFAULT now());
INSERT INTO groupsync_schema (version) VALUES (2);
\\endif
\\if :needs_3
COMMENT ON SEQUENCE groupsync_change IS 'GroupSync schema 3: each change number is drawn under pg_advisory_xact_lock(1196839767, the first four bytes of its space), so that the writes of a space commit in the order of their numbers';
INSERT INTO groupsync_schema (version) VALUES (3);
\\endif
COMMIT;
SELECT 'migrated';
"""

    def schema_version(self):
        """The connection's first statement alone; None when it fails (no version table yet)."""
        try:
            return int(self.run(self.FIRST)[0][1])
        except (Failure, IndexError, ValueError):
            return None

    def session(self, sql):
        """Run `sql` on a new connection after its first statement (section 6, "Session
        settings"), whose version says whether the schema is current (section 3): 3 is, above 3
        is refused, anything else (or an error: no version table yet) takes the migration."""
        try:
            rows = self.run(self.FIRST + sql)
            version = int(rows[0][1])
        except Failure:
            version = self.schema_version()
            if version == SCHEMA_VERSION:
                raise  # the schema is current: the statement itself failed
            rows = None
        if version == SCHEMA_VERSION:
            return rows[1:]
        if version is not None and version > SCHEMA_VERSION:
            raise Failure("schema: the server's schema is version %d, this client knows %d: "
                          "update the client" % (version, SCHEMA_VERSION))
        result = self.run(self.MIGRATION)
        if result and result[-1] == ["too-new"]:
            raise Failure("schema: the server's schema is newer than version %d: update the client"
                          % SCHEMA_VERSION)
        rows = self.run(self.FIRST + sql)
        if int(rows[0][1]) != SCHEMA_VERSION:
            raise Failure("schema: version %s after migrating" % rows[0][1])
        return rows[1:]


# SYNC.md section 6, step 1: went back? and catch up (one statement).
CATCH_UP = """SELECT c.last, e.name, e.sequence, e.change, e.blob
FROM (SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS last FROM groupsync_change) AS c
LEFT JOIN LATERAL (
    SELECT name, sequence, change, blob FROM (
        SELECT name, sequence, change, blob,
               sum(octet_length(blob)) OVER (ORDER BY change) - octet_length(blob) AS before
        FROM (SELECT name, sequence, change, blob FROM groupsync_entry
              WHERE space = {space} AND change > {cursor} ORDER BY change LIMIT {limit}) AS page
    ) AS counted
    WHERE before < 4194304) AS e ON true
ORDER BY e.change"""

# SYNC.md section 6, step 2: the page query alone (the part inside LEFT JOIN LATERAL).
PAGE = """SELECT name, sequence, change, blob FROM (
    SELECT name, sequence, change, blob,
           sum(octet_length(blob)) OVER (ORDER BY change) - octet_length(blob) AS before
    FROM (SELECT name, sequence, change, blob FROM groupsync_entry
          WHERE space = {space} AND change > {cursor} ORDER BY change LIMIT {limit}) AS page
) AS counted
WHERE before < 4194304"""

# SYNC.md section 6, step 3: the compare-and-swap, which also notifies.
COMPARE_AND_SWAP = """WITH space_lock AS (SELECT pg_advisory_xact_lock(1196839767,
    ('x' || encode(substring({space} FROM 1 FOR 4), 'hex'))::bit(32)::integer)),
written AS (
    INSERT INTO groupsync_entry AS e (space, name, sequence, change, blob)
    VALUES ({space}, {name}, {sequence}, (SELECT nextval('groupsync_change') FROM space_lock), {blob})
    ON CONFLICT (space, name) DO UPDATE
        SET sequence = EXCLUDED.sequence, change = EXCLUDED.change, blob = EXCLUDED.blob, written_at = now()
        WHERE e.sequence = {base}
    RETURNING change, sequence, name, blob)
SELECT change, pg_notify({channel}, change::text || CASE WHEN octet_length(blob) <= 3900
    THEN ' ' || sequence::text || ' ' || encode(name, 'hex') || ' ' || encode(blob, 'hex') ELSE '' END)
FROM written"""

PAGE_BYTES = 4194304


def catch_up(server, space):
    """Read every row of the space with the catch-up of section 6 steps 1 and 2 from cursor 0.
    Returns {name: (sequence, change, blob)}; a later row of an entry replaces an earlier one."""
    rows = {}
    limit = 500
    sql = CATCH_UP.format(space=sql_hex(space), cursor=0, limit=limit)
    sql = sql.replace("SELECT c.last, e.name, e.sequence, e.change, e.blob",
                      "SELECT c.last, encode(e.name, 'hex'), e.sequence, e.change, "
                      "encode(e.blob, 'hex')", 1)
    result = server.session(sql + ";\n")
    page = [row[1:] for row in result if row[1] != ""]
    while True:
        total = 0
        cursor = 0
        for name_hex, sequence, change, blob_hex in page:
            blob = bytes.fromhex(blob_hex)
            total += len(blob)
            cursor = max(cursor, int(change))
            rows[bytes.fromhex(name_hex)] = (int(sequence), int(change), blob)
        full = len(page) >= limit or total >= PAGE_BYTES
        if not full:
            return rows
        limit = min(limit * 2, 4000)
        sql = PAGE.format(space=sql_hex(space), cursor=sql_int(cursor), limit=limit)
        sql = sql.replace("SELECT name, sequence, change, blob FROM (",
                          "SELECT encode(name, 'hex'), sequence, change, encode(blob, 'hex') "
                          "FROM (", 1)
        page = server.session(sql + ";\n")


# ---------------------------------------------------------------------------------------------
# Commands


def command_read(server, names, group, store, keys):
    accepted, refused = [], []
    for name, (sequence, change, blob) in catch_up(server, names.space).items():
        try:
            accepted.append(judge_row(names, group, store, keys, name, sequence, blob))
        except Refusal as refusal:
            refused.append({"refused": refusal.code, "name": name.hex()})
            print("row %s refused (%s): %s" % (name.hex(), refusal.code, refusal), file=sys.stderr)
    for entry in sorted(accepted, key=lambda entry: entry["key"]):
        print(json.dumps(entry))
    for entry in sorted(refused, key=lambda entry: entry["name"]):
        print(json.dumps(entry))
    return 0


def open_snapshot(names, group, keys, change_column, blob):
    """SYNC.md section 6, "Snapshots": the snapshot's checks in order; returns its entries as
    (name, sequence, blob, shown) with shown None or (key, value bytes)."""
    if not 48 + 16 <= len(blob) <= 64 << 20:
        raise Refusal("malformed", "a snapshot of %d bytes" % len(blob))
    if blob[0:4] != b"GVSS":
        raise Refusal("malformed", "wrong magic")
    if blob[4] != 1:
        raise Refusal("unsupportedFormat", "snapshot format version %d" % blob[4])
    (key_id, change, count) = struct.unpack(">IQI", blob[8:24])
    if blob[5:8] != b"\x00\x00\x00":
        raise Refusal("malformed", "reserved bytes are not zero")
    if not 1 <= change < 2 ** 63 or change != change_column:
        raise Refusal("malformed", "change %d, the row says %d" % (change, change_column))
    smallest = 32 + 8 + 4 + HEADER_SIZE + 16 + 1
    if count > (len(blob) - 64) // smallest:
        raise Refusal("malformed", "%d entries in %d bytes" % (count, len(blob)))
    key = keys.get(key_id)
    if key is None:
        raise Refusal("unknownKey", "key #%d is not in the keyset" % key_id)
    header = blob[:48]
    plaintext = open_sealed(kdf(key, 3, b"GVSYNC01"), blob[24:48], blob[48:],
                            header + frame("snapshot", names.space, group))
    if plaintext is None:
        raise Refusal("authenticationFailed", "the snapshot's tag does not verify")
    entries, offset, previous = [], 0, None

    def take(size):
        nonlocal offset
        if offset + size > len(plaintext):
            raise Refusal("malformed", "the snapshot ends inside an entry")
        offset += size
        return plaintext[offset - size:offset]

    for _ in range(count):
        name = take(32)
        (sequence,) = struct.unpack(">Q", take(8))
        (length,) = struct.unpack(">I", take(4))
        entry_blob = take(length)
        if previous is not None and not previous < name:
            raise Refusal("malformed", "entries out of name order")
        previous = name
        flag = take(1)[0]
        shown = None
        if flag == 1:
            (key_length,) = struct.unpack(">H", take(2))
            try:
                shown_key = take(key_length).decode("utf-8")
            except UnicodeDecodeError:
                raise Refusal("invalidRecord", "a shown key is not UTF-8")
            (value_length,) = struct.unpack(">I", take(4))
            shown = (shown_key, take(value_length))
        elif flag != 0:
            raise Refusal("malformed", "shown flag %d" % flag)
        entries.append((name, sequence, entry_blob, shown))
    if offset != len(plaintext):
        raise Refusal("malformed", "bytes after the last entry")
    # Then each entry's own checks, in order.
    for name, sequence, entry_blob, shown in entries:
        if not 1 <= sequence < 2 ** 63:
            raise Refusal("malformed", "sequence %d" % sequence)
        if sequence > 2 ** 32:
            raise Refusal("untrustedSequence", "sequence %d more than 2^32 above 0" % sequence)
        if (len(entry_blob) > MAX_BLOB or len(entry_blob) < HEADER_SIZE or entry_blob[0:4] != b"GVRB"
                or struct.unpack(">Q", entry_blob[12:20])[0] != sequence):
            raise Refusal("malformed", "an entry's blob is no sealed entry at its sequence")
        if shown is not None and names.name(shown[0]) != name:
            raise Refusal("invalidRecord", "a shown key does not hash to its entry's name")
    return entries


def command_snapshot(server, names, group, store, keys):
    rows = server.session("SELECT change, encode(blob, 'hex') FROM groupsync_snapshot WHERE space = %s;\n"
                          % sql_hex(names.space))
    if not rows:
        print("the server holds no snapshot of the space", file=sys.stderr)
        return 4
    try:
        entries = open_snapshot(names, group, keys, int(rows[0][0]), bytes.fromhex(rows[0][1]))
    except Refusal as refusal:
        raise Failure("the snapshot is refused (%s): %s" % (refusal.code, refusal))
    accepted, refused = [], []
    for name, sequence, blob, shown in entries:
        # Each blob judged as a row, and what the snapshot shows checked against it: this
        # client trusts no writer's plaintext.
        try:
            entry = judge_row(names, group, store, keys, name, sequence, blob)
        except Refusal as refusal:
            if shown is not None:
                raise Failure("the snapshot shows a value for an entry whose blob is refused (%s)"
                              % refusal.code)
            refused.append({"refused": refusal.code, "name": name.hex()})
            continue
        if shown is None:
            faithful = entry["value"] is None
        else:
            try:
                faithful = shown[0] == entry["key"] and decode_value(store, shown[1]) == entry["value"]
            except (ValueError, TypeError, UnicodeDecodeError, struct.error):
                faithful = False
        if not faithful:
            raise Failure("the snapshot shows entry %s otherwise than its blob" % name.hex())
        accepted.append(entry)
    for entry in sorted(accepted, key=lambda entry: entry["key"]):
        print(json.dumps(entry))
    for entry in sorted(refused, key=lambda entry: entry["name"]):
        print(json.dumps(entry))
    return 0


def command_write(server, names, group, store, keys, key, value, base):
    name = names.name(key)
    if base is None:
        # The server's current sequence for the entry (0: none).
        rows = server.session("SELECT sequence FROM groupsync_entry WHERE space = %s AND name = %s;\n"
                              % (sql_hex(names.space), sql_hex(name)))
        base = int(rows[0][0]) if rows else 0
    sequence = base + 1
    # The plaintext: {"key": <key>, "value": <base64 of the value's bytes>}, sorted keys; a removal
    # has no "value" member (SYNC.md section 5).
    payload = {"key": key}
    if value is not None:
        payload["value"] = base64.b64encode(encode_value(store, value)).decode("ascii")
    primary = max(keys)
    blob = seal_entry(group, name, primary, keys[primary], sequence, swift_json(payload))
    if len(blob) > MAX_BLOB:
        raise Failure("the sealed entry is %d bytes, over the largest entry, %d" % (len(blob), MAX_BLOB))
    assert re.match(r"\Ags_[0-9a-f]{32}\Z", names.channel)
    rows = server.session(COMPARE_AND_SWAP.format(
        space=sql_hex(names.space), name=sql_hex(name), sequence=sql_int(sequence),
        blob=sql_hex(blob), base=sql_int(base), channel="'%s'" % names.channel) + ";\n")
    if not rows:
        print("the compare-and-swap stored nothing: the entry is no longer at sequence %d" % base,
              file=sys.stderr)
        return 3
    print(json.dumps({"change": int(rows[0][0]), "sequence": sequence}))
    return 0


# ---------------------------------------------------------------------------------------------
# Arguments

USAGE = ("usage: groupsync_independent.py --url URL --group GROUP --store STORE "
         "--key ID:HEX [--key ID:HEX ...] [--base N] (read | snapshot | write KEY VALUE_JSON | remove KEY)")


def parse_arguments(argv):
    options = {"keys": {}}
    index = 0
    while index < len(argv) and argv[index].startswith("--"):
        option = argv[index]
        if "=" in option:
            option, argument = option.split("=", 1)
            index += 1
        else:
            if index + 1 >= len(argv):
                raise UsageError("%s needs a value" % option)
            argument = argv[index + 1]
            index += 2
        if option in ("--url", "--group", "--store"):
            if option[2:] in options:
                raise UsageError("%s given twice" % option)
            if argument == "":
                raise UsageError("%s is empty" % option)
            options[option[2:]] = argument
        elif option == "--key":
            match = re.match(r"\A([0-9]+):([0-9a-fA-F]{64})\Z", argument)
            if not match:
                raise UsageError("--key takes ID:HEX, a decimal id and 64 hex digits")
            key_id = int(match.group(1))
            if not 1 <= key_id <= 0xFFFFFFFF:
                raise UsageError("--key: key ids are 1 to 4294967295")
            if key_id in options["keys"]:
                raise UsageError("--key: key #%d given twice" % key_id)
            options["keys"][key_id] = bytes.fromhex(match.group(2))
        elif option == "--base":
            if not re.match(r"\A[0-9]+\Z", argument) or int(argument) >= 2 ** 63 - 1:
                raise UsageError("--base takes a sequence, 0 or more")
            options["base"] = int(argument)
        else:
            raise UsageError("unknown option %s" % option)
    for required in ("url", "group", "store"):
        if required not in options:
            raise UsageError("--%s is required" % required)
    if 1 not in options["keys"]:
        raise UsageError("--key 1:HEX is required: key #1 names the space and its entries")
    store = options["store"]
    if store != "records" and not (store.startswith("kvstore:") and len(store) > len("kvstore:")):
        raise UsageError("--store is kvstore:<identifier> or records")
    rest = argv[index:]
    if not rest:
        raise UsageError("no command")
    command, arguments = rest[0], rest[1:]
    if command in ("read", "snapshot"):
        if arguments:
            raise UsageError("%s takes no arguments" % command)
        if "base" in options:
            raise UsageError("--base is for write and remove")
        return options, command, arguments
    if command == "write":
        if len(arguments) != 2:
            raise UsageError("write takes KEY VALUE_JSON")
    elif command == "remove":
        if len(arguments) != 1:
            raise UsageError("remove takes KEY")
    else:
        raise UsageError("unknown command %r" % command)
    key = arguments[0]
    try:
        key_bytes = key.encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError("KEY is not valid UTF-8")
    if store != "records" and not 1 <= len(key_bytes) <= 64:
        # SYNC.md section 5: keys of the key-value store are 1 to 64 bytes of UTF-8 (Apple's
        # limit); readers refuse others.
        raise UsageError("keys of the key-value store are 1 to 64 bytes of UTF-8")
    if command == "remove":
        return options, command, [key, None]
    text = arguments[1]
    if text == "-":
        # Not JSON, so free to mean "from standard input": an argument holds at most 128 KiB.
        text = sys.stdin.buffer.read()
    try:
        value = parse_json(text)
        if store == "records":
            if (not isinstance(value, dict) or set(value) != {"schema", "record"}
                    or not is_int(value["schema"]) or not 0 <= value["schema"] <= 0xFFFFFFFF):
                raise ValueError('a record is {"schema": N, "record": <JSON>}')
        else:
            check_ubiquitous_value(value)
    except (ValueError, TypeError, UnicodeDecodeError) as error:
        raise UsageError("VALUE_JSON: %s" % error)
    return options, command, [key, value]


def main(argv):
    try:
        options, command, arguments = parse_arguments(argv)
    except UsageError as error:
        print("groupsync_independent.py: %s\n%s" % (error, USAGE), file=sys.stderr)
        return 2
    try:
        group, store, keys = options["group"], options["store"], options["keys"]
        names = Names(keys[1], group, store)
        server = Server(options["url"])
        if command == "read":
            return command_read(server, names, group, store, keys)
        if command == "snapshot":
            return command_snapshot(server, names, group, store, keys)
        return command_write(server, names, group, store, keys, arguments[0], arguments[1],
                             options.get("base"))
    except Failure as error:
        print("groupsync_independent.py: %s" % error, file=sys.stderr)
        return 1
    except Exception as error:  # anything unforeseen is a failure too, never a usage error
        print("groupsync_independent.py: %s: %s" % (type(error).__name__, error), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
