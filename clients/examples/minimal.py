from clients.sdk import View, serve
from referee.rules import Card


class Lowest:
    def pass_cards(self, view: View) -> list[Card]:  # the highest cards
        k = view.rules.pass_count
        return sorted(view.hand, key=lambda c: c.rank)[-k:]

    def play_card(self, view: View) -> Card:  # the lowest legal card
        return min(view.legal, key=lambda c: c.rank)


if __name__ == "__main__":
    serve(Lowest(), port=50051)
