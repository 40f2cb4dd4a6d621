"""A person at the table: ``hearts play`` seats a person against bots, through the referee (docs/play.md)."""
