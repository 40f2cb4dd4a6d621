"""Small example bots; minimal.py is the one the README shows."""
