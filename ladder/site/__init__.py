"""The arena's web site: server-rendered pages on the arena's app, and the static site."""
