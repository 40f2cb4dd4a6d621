"""The arena's web site (issue #15): server-rendered pages on the arena's app, and the static site."""
