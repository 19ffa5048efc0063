"""The last resort: a long token whose characters look random, told apart from the hashes,
ids, public keys and encoded files that look just as random."""

from __future__ import annotations

import math
import re

from ..lazy_re import lazy
from .values import (
    decodes_to_text,
    encoded_file,
    entropy,
    is_placeholder,
    is_public,
    switch_rate,
)

# High-entropy candidates: base64 / base64url / hex runs of at least 32 characters.
TOKEN = lazy(r"(?<![A-Za-z0-9+/_\-])[A-Za-z0-9+/_\-]{32,}={0,2}(?![A-Za-z0-9+/_\-=])")
_HEX = lazy(r"[0-9a-fA-F]+")
_WORD_SEGMENT = lazy(r"[a-z]{2,}|[A-Z][a-z]+|[a-z]+[._\-][a-z]+|v?\d+(?:\.\d+)*")
# A path segment named in code: `_buildManifest`, `_next`, `pageData`.
_NAME_SEGMENT = lazy(r"_?[a-z]+(?:[A-Z][a-z]+)*")
_UUID = lazy(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")
_SECRET_CONTEXT = lazy(
    r"(?i)secret|passw|token|api[_\- ]?key|private|credential|auth|bearer|signing|"
    r"webhook|session|cookie|\bkey\b"
)
_HASH_CONTEXT = lazy(
    r"(?i)\b(?:(?:commit|revert|merg|cherry|rebas|bisect|deploy|releas|rollback|roll back|"
    r"checkout|hotfix|fix|patch|pin|tag|build|image|digest|checksum|hash|fingerprint|"
    r"revision|integrity|etag|version|object|blob|parent|nonce|salt|hmac|gpg|pgp|keyid|"
    r"signature|signed|trace|span|request|job|cid|ipfs)\w*"
    r"|sha\d*|md5|rev|tree|head|git|ref|refs|id|ids|in|at|to|from|rsa key|key id)\b"
    r"|sha\d+[:\-]$|@$"
)
# What precedes a value that is public or an identifier by design.
_PUBLIC_BEFORE = lazy(
    r"(?i)(?:sha\d+[:\-]|h1:|integrity\W*|base64,|ipfs://|/ipfs/|"
    r"(?:ssh-(?:rsa|dss|ed25519)|ecdsa-sha2-nistp\d+|sk-ssh-ed25519@openssh\.com)\s+|"
    r"public[_ \-]?key(?:[ \t]*\([^()\n]{0,40}\))?\W{0,4}|pubkey\W{0,4}|peer\W{0,3}|"
    r"recipient\W{0,3}|\bpk\.|\betag\W{0,4}(?:W/)?\"?|"
    r"public key[^\n]{0,30}\r?\n[ \t]*|\baddress(?:es)?\W{0,4}|"
    r"(?:site|publishable)[_ \-]?key\W{0,4}|\bpublic\)?[ \t]*(?:is|=|:)?[ \t]*|"
    r"(?:checksum|digest|hash)[\w\-]*[\"']?\s*[:=]\s*[\"']?|"
    r"sha\d+[\"']?[ \t]*[:=][ \t]*[\"']?|signature(?:-\d+)?[\"']?[ \t]*[:=][ \t]*[\"']?(?:v\d+,|[A-Za-z0-9+/]{16,}=)?|"
    r"(?:captcha|turnstile)[\w\-]*[\"']?[ \t]*[:=][ \t]*[\"']?|"
    r"(?:csrf|xsrf)[\w\-]*[\"']?(?:[ \t]*[:=][ \t]*|\s+(?:content|value)=)[\"']?|"
    r"(?:payload|body|message|bytes)[ \t]*\(?base64\)?[ \t]*[:=][ \t]*|"
    r"(?:page|continuation|sync)[_\-]?token[\"']?[ \t]*[:=][ \t]*[\"']?|"
    r"cursor[\"']?[ \t]*[:=][ \t]*[\"']?|ciphertext\w*\W{0,4}|\bsecure[\"']?[ \t]*:[ \t]*[\"']?|"
    r"sha-\d+=:|\bM[EG][QUY]C[IM][A-Za-z0-9+/]{16,}=|public\w{0,6}key</key>\s*<string>|signedentrytimestamp[\"']?\s*:\s*[\"']?|"
    r"\b(?:oauth_)?(?:state|nonce)[\"']?[ \t]*[:=][ \t]*[\"']?|analytics\.load\([ \t]*[\"']|"
    r"\"(?:n|e|x|y|kid|x5t(?:#s256)?|x5c)\"\s*:\s*\[?\s*\")$")
# A hash named by its algorithm, in the token itself (`sha256-...` in SRI and nix,
# `sha256/...` in certificate pins).
_ALGORITHM = lazy(r"(?i)(?:sha(?:1|224|256|384|512)|sha3-\d+|md5|blake2[bs]?)[\-_/]")
# A label that says the value is an identifier: `node id`, `"node_id": "`, `x-amz-id-2: `.
_ID_BEFORE = lazy(
    r"(?i)(?:^|[^a-z0-9])(?:([a-z0-9]+)[\s_\-.]?)?(?:id|ids|uid|guid|uuid|identifier)"
    r"(?:[_\-]\d+)?[\"']?\s*[:=]?\s*[\"']?$")
_SECRET_IDS = frozenset({"session", "sess", "s", "secret", "csrf", "xsrf", "auth"})
_CID = lazy(r"Qm[1-9A-HJ-NP-Za-km-z]{44}|baf[a-z2-7]{50,}")
# A URL cut inside its host (a dot ends a token): what follows is the host's end and path.
_IN_HOST = lazy(r"^[a-z][a-z0-9+.\-]*://[A-Za-z0-9.\-]+\.$", re.IGNORECASE)
_URL_START = lazy(r"[a-z][a-z0-9+.\-]*://[^\s/?#]+(/[^\s?#]*)?$", re.IGNORECASE)


def _in_url_path(before: str) -> bool:
    """True when the token continues the path of a URL (``https://host/d/<id>/edit``):
    document ids and file names, not credentials (those sit in the query or the user
    part, or have a provider's shape)."""
    word = re.split(r"[\s\"'<>()\[\]]", before)[-1]
    if _CAPABILITY_PATH.search(word):
        return False
    return "://" in word and "?" not in word and "#" not in word and bool(
        _URL_START.search(word)) and word.count("/") >= 3


# Values published on purpose in DNS: anything in a TXT record (SPF, DKIM, domain
# verification), ACME challenges (`_acme-challenge` records, `/.well-known/acme-challenge/`
# paths), `*-verification=` tokens and a DKIM record's public key (`p=`).
_TXT_RECORD = lazy(r"(?i)(?:^|\s)(?:IN[ \t]+)?TXT(?:\s|$)")
_VERIFICATION = lazy(r"(?i)[a-z0-9\-]*verification[=:][ \t]*$")
_DKIM = lazy(r"(?i)v=dkim1|_domainkey|\bk=(?:rsa|ed25519)\b")
# A URL query parameter or fragment whose name says it holds a secret.
_SECRET_PARAM = lazy(r"(?i)tok|key|sig|secret|auth|pass|pw|code|session|sid|jwt|cred|otp")
# The value may have begun already, cut at a percent escape (`?SAMLRequest=fZ...%<2B...>`).
_ESCAPE = lazy(r"%[0-9A-Fa-f]{2}")
_QUERY_PARAM = lazy(r"[?&;#]([A-Za-z0-9_.\-\[\]]*)=(?:[A-Za-z0-9_.\-~+/%]*%)?$")
# Parameters that carry one request's proof or anti-forgery value, not a credential: OAuth's
# `state`, OpenID's `nonce`, PKCE's `code_challenge` (a hash of a verifier kept elsewhere).
_PER_REQUEST_PARAM = lazy(r"(?i)state|nonce|code_challenge(?:_method)?")
# A comment on the same line that says the key is public by design.
_SAID_PUBLIC = lazy(r"(?i)search[ \-]only|publishable|safe (?:in|for) the (?:browser|client|"
                    r"front ?end)|public by design|(?:is|are) public\b")
# A line, or the one before it, that says what follows is ciphertext: `--query
# CiphertextBlob`, a `*.enc` file (Rails' encrypted credentials), an encrypted blob.
_CIPHER_LINES = lazy(r"(?i)ciphertext|\.enc\b|encrypted[ _\-]?(?:data|value|blob|string|"
                     r"payload|credentials)")
# Ids of objects that a payment provider puts in URLs and events (`cs_live_...`, a
# checkout session): live or test, like its keys, but only `sk_`/`rk_` ones are secret.
_OBJECT_ID = lazy(r"(?:^|/)([a-z]{1,8})_(?:live|test)_")
# An X.509 certificate in DER, base64-encoded: SEQUENCE, SEQUENCE, then version 3 and the
# serial (`MIIDWjCCAkKgAwIBAgI...`), however it is wrapped (XML, JSON, a bare line).
_CERTIFICATE = lazy(r"MII[A-Za-z0-9+/]{3}CCA[A-Za-z0-9+/]{2}gAwIBAgI")
# Paths whose next segment is the capability itself: invitations, password resets, magic
# links, a key given in the path (`/with/key/<key>`).
_CAPABILITY_PATH = lazy(r"(?i)/(?:invite|invitation|join|reset|reset[_\-]password|magic|"
                        r"magic[_\-]link|key|token)/$")
_NEGATION = lazy(r"(?i)\bnot\b|\bnever\b|n't\b|\bno\b")
# A line, or the one before it, that says what follows is an encoded file or message: a
# ConfigMap's `binaryData`, a SAML request posted by a form (an unsigned AuthnRequest).
_ENCODED_LINES = lazy(r"(?i)binarydata|samlrequest")
# Base58 after a word that names public chain data: a transaction's signature, a slot's
# block hash, a fee payer's, a program's, a mint's or an owner's public key.
_BASE58 = lazy(r"[1-9A-HJ-NP-Za-km-z]+")
_CHAIN_WORD = lazy(r"(?i)\b(?:tx|txid|txn|transaction|signature|blockhash|payer|program|mint|"
                   r"pubkey|owner|address)(?:[ \t]+(?:hash|id|sig))?[ \t]*[:=#]?[ \t]*$")
_NOUN_BEFORE = lazy(r"([A-Za-z]{3,20})[ \t]+$")
_ID_PREFIX = lazy(r"([a-z]{2,5})_")
# Nouns whose abbreviation starts a secret's prefix, not an object's id.
_SECRET_NOUNS = frozenset("token key secret password passphrase session auth credential "
                          "cookie bearer api access refresh private signing".split())


def named_object_id(core: str, before: str) -> bool:
    """``Deployment dpl_...``, ``project prj_...``, ``customer cus_...``: a token whose
    prefix abbreviates the noun right before it is that object's id."""
    p = _ID_PREFIX.match(core)
    n = _NOUN_BEFORE.search(before[-30:]) if p is not None else None
    if n is None:
        return False
    noun, prefix = n.group(1).lower(), p.group(1)
    if noun in _SECRET_NOUNS or noun[0] != prefix[0]:
        return False
    it = iter(noun)
    return all(c in it for c in prefix)  # the prefix's letters, in order, in the noun


def published_record(before: str) -> bool:
    """True when the text before a token puts it in a DNS record or ACME challenge."""
    line = before.rsplit("\n", 1)[-1]
    if _TXT_RECORD.search(line) or _VERIFICATION.search(line):
        return True
    if line.rstrip("\" \t").endswith("p=") and _DKIM.search(line):
        return True
    return "acme-challenge" in before[-300:].lower()


def id_in_url_query(before: str) -> bool:
    """True when the token is a URL's query value (or fragment) under a name that is not a
    secret's: ``?list=<id>``, ``?v=<id>``, ``&ref=<id>``. Tokens in the query are judged by
    their parameter (``?sig=``, ``?access_token=`` are caught by their own rule)."""
    word = re.split(r"[\s\"'<>()\[\]]", before)[-1]
    if (len(word) == len(before) and before.endswith("%")
            and len(_ESCAPE.findall(word)) >= 2 and "?" not in word):
        return True  # deep in a long URL-encoded value (`SAMLRequest=`), cut at an escape
    request_path = word.startswith("/") and "?" in word  # `GET /authorize?...`
    if "://" not in word and not request_path and not (
            len(word) == len(before) and ("?" in word or "&" in word)):
        return False  # not in a URL (or in one longer than the window, cut before its `?`)
    param = _QUERY_PARAM.search(word)
    return param is not None and (not _SECRET_PARAM.search(param.group(1))
                                  or _PER_REQUEST_PARAM.fullmatch(param.group(1)) is not None)


_FILE_PATH = lazy(r"(?:~|\.{1,2})?/[\w.\-]+/[\w.\-/]*$")


def in_file_path(before: str) -> bool:
    """True when the token continues an absolute or home-relative file path
    (``/app/.cache/images/<id>/...``): cache keys and content hashes, named by the
    file system, not credentials."""
    word = re.split(r"[\s\"'<>()\[\]=:,]", before)[-1]
    return _FILE_PATH.fullmatch(word) is not None


def structured_id(core: str) -> bool:
    """Parts of one length joined by slashes (``<20>/<20>/<20>/<20>``, as Go prints a build
    id): random base64 puts its slashes anywhere, so equal parts are a format's fields."""
    parts = core.split("/")
    return len(parts) >= 2 and "+" not in core and len({len(p) for p in parts}) == 1


def random_token(tok: str, before: str, after: str) -> bool:
    """True when ``tok`` looks like a random secret rather than a hash, id, name or path."""
    core = tok.rstrip("=")
    if len(core) < 32 or max(map(len, re.split(r"[+/_\-=]", core))) < 16:
        return False
    if is_public(core) or _CID.fullmatch(core) or _PUBLIC_BEFORE.search(before[-60:]):
        return False
    if before.endswith("/") and _PUBLIC_BEFORE.search(before[-60:].rstrip("/")):
        return False  # `SHA256:/H6NE...`, `h1:/XFQ...`: base64 that starts with a slash
    if _ALGORITHM.match(core) or is_placeholder(core):
        return False  # a hash named by its algorithm; a stand-in (`...EXAMPLEKEY`)
    obj = _OBJECT_ID.search(core)
    if (obj is not None and obj.group(1) not in ("sk", "rk")) or _CERTIFICATE.match(core):
        return False  # `cs_live_...`: an object's id; a certificate's DER
    label = _ID_BEFORE.search(before[-40:])
    if label is not None and (label.group(1) or "").lower() not in _SECRET_IDS:
        return False  # an identifier, named so (session and secret ids are not exempt)
    if _in_url_path(before[-200:]) or id_in_url_query(before[-200:]):
        return False
    if in_file_path(before[-200:]) or structured_id(core):
        return False
    said = after.split("\n", 1)[0]
    if _SAID_PUBLIC.search(said) and not _NEGATION.search(said):
        return False  # `'<key>'); // search-only key, safe in the browser`
    two_lines = "\n".join(before[-200:].rsplit("\n", 2)[-2:])
    if _CIPHER_LINES.search(two_lines) or _ENCODED_LINES.search(two_lines):
        return False  # ciphertext committed on purpose or an encoded file, said so on its
        # line or the one before
    if named_object_id(core, before) or (_BASE58.fullmatch(core) and _CHAIN_WORD.search(
            before[-40:])):
        return False  # `Deployment dpl_...`; `tx <signature>`, `fee payer <public key>`
    if published_record(before[-300:]) or encoded_file(core) or (
            before.endswith("/") and encoded_file("/" + core)):
        return False
    segments = core.split("/")
    if len(segments) >= 2 and _IN_HOST.search(re.split(r"[\s\"'<>()\[\]]", before[-200:])[-1]):
        # `https://sns.amazonaws.<com/Name-<hash>>`: the host's end, then its path: judge
        # each part of the path where it stands
        return any(random_token(seg, before + "/".join(segments[:i]) + "/", after)
                   for i, seg in enumerate(segments) if i and len(seg) >= 32)
    if len(segments) >= 3 and sum(_WORD_SEGMENT.fullmatch(s) is not None
                                  or _NAME_SEGMENT.fullmatch(s) is not None
                                  for s in segments) >= 2:
        # a path (src/<sha>/lib): judge each part on its own
        return any(random_token(seg, before + "/".join(segments[:i]) + "/", after)
                   for i, seg in enumerate(segments) if len(seg) >= 32)
    if _UUID.search(core):
        return False
    # What surrounds the token: the rest of its line and the end of the line before.
    ctx_before = before[-90:]
    ctx_after = after.split("\n", 1)[0][:30]
    if _HEX.fullmatch(core):
        # Hex strings are nearly always hashes (commits, checksums, test vectors): flag one
        # only when its context speaks of a secret and not of a hash.
        line_before = ctx_before.rsplit("\n", 1)[-1]
        if _HASH_CONTEXT.search(ctx_before) or _HASH_CONTEXT.search(ctx_after):
            return False
        if not _SECRET_CONTEXT.search(line_before + " " + ctx_after):
            return False
        return entropy(core) >= 3.0 and switch_rate(core) >= 0.3
    # The classes of the random part: a word before or after it (`Acme-<hash>`, `<id>_Build`)
    # lends a lower-case hash no capital letter.
    parts = [p for p in re.split(r"[_\-]", core) if not _WORD_SEGMENT.fullmatch(p)]
    body = "".join(parts) or core
    has_lower = any(c.islower() for c in body)
    has_upper = any(c.isupper() for c in body)
    digits = sum(c.isdigit() for c in body)
    if not (has_lower and has_upper and digits >= 1):
        return False
    threshold = min(4.5, 0.82 * math.log2(len(core)) + 0.3)
    if _CAPABILITY_PATH.search(before[-40:]):
        threshold = min(threshold, 4.0)  # `/invite/<token>`: the path says what it is
    if entropy(core) < threshold or switch_rate(core) < 0.42:
        return False
    return not decodes_to_text(core)
