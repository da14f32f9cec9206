"""The HTTP kit every domain's views build on: request dependencies and the role policy (``deps``),
error mapping (``errors``), streamed uploads (``uploads``), the page envelope (``pagination``) and
signed download links (``links``), request limits (``limits``), log redaction (``redact``) and
stale temp files (``tempfiles``). It sits below the domains' views and imports no view."""
