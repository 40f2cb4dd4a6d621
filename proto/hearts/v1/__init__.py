"""Generated gRPC code of the hearts.v1 bot protocol (see bot.proto). Regenerate with `make proto`."""
