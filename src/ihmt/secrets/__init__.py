"""Spotting secrets (keys, tokens, passwords) in text before it becomes a memory, and
masking them wherever text leaves the library for a reader.

Memories are plain files that agents read back into their context, so a key pasted into a
save would be copied into every later session that happens to search near it. This
package finds what looks like a credential so that a save can be refused (or redacted)
with a message saying what looked secret and where, and so that every face (CLI, MCP
server, GUI, hooks) can mask what a store holds anyway.

Three kinds of evidence are used, each in its module:

* :mod:`.shapes`: the shape of a token: providers give their keys a recognisable prefix
  (``ghp_``, ``AKIA``, ``sk-ant-``, ``xoxb-``, ``hvs.``, ``dop_v1_`` ...), private keys
  come in PEM blocks, JWTs are three base64url parts starting with ``eyJ``;
* :mod:`.context`: what surrounds a value: ``password = "..."``, ``token: ...``,
  ``scheme://user:pw@host``, ``Authorization: Basic ...``, ``curl -u user:pw``,
  ``mysql -pPW``, ``--token X``, netrc and pgpass lines, "the wifi password is ...";
* :mod:`.entropy`: as a last resort, a long token whose characters look random that is
  not a hash, an id, a public key, a certificate or an encoded file.

Every pattern is a linear regular expression without nested quantifiers, so scanning is
proportional to the text's length (``python -m bench.secrets`` measures it per KB).
Placeholders (``<password>``, ``${TOKEN}``, ``os.environ[...]``, ``xxx``, ``REDACTED`` ...)
are not secrets and are ignored: a note that says *where* a secret lives is exactly what
should be saved instead.
"""

from __future__ import annotations

from .model import KINDS, Finding
from .output import Masked, describe, mask, mask_data, mask_value, masked_note, redact
from .scan import find_secrets

__all__ = ["KINDS", "Finding", "Masked", "describe", "find_secrets", "mask", "mask_data",
           "mask_value", "masked_note", "redact"]
