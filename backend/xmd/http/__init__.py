"""The HTTP kit every domain's views build on: request dependencies and the role policy (``deps``),
error mapping (``errors``), streamed uploads (``uploads``), the page envelope (``pagination``) and
signed download links (``links``). It sits below the domains' views and imports no view."""
