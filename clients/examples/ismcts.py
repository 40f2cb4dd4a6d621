"""A tree-search bot in about 60 lines (docs/search.md): information-set MCTS over sampled worlds."""

import math
import random
import time

from clients.sdk import Bot, serve
from referee.rules import Phase
from referee.rules.cards import DECK
from referee.rules.state import ROLLOUT_RULES, rollout


class Node:
    def __init__(self, seat):
        self.seat, self.visits, self.available, self.total, self.children = seat, 0, 0, 0.0, {}


class SmallSearch(Bot):
    name = "small-ismcts"

    def __init__(self, share: float = 0.5) -> None:
        self.share = share  # of each decision's budget
        self.rng = random.Random(1)

    def pass_cards(self, view):
        return sorted(view.hand, key=lambda c: (c.rank, c.suit == 3))[-view.rules.pass_count :]

    def play_card(self, view):
        legal = view.legal.cards
        if len(legal) == 1:
            return legal[0]
        deadline = time.perf_counter() + self.share * view.budget_ms / 1000 - 0.004
        root = Node(view.seat)
        while time.perf_counter() < deadline or not root.children:
            hand = view.sample_worlds(1, self.rng)[0].to_hand()  # one consistent deal of the unseen cards
            node, path = root, []
            while hand.phase is Phase.PLAY:  # down the tree: each seat picks for itself
                seat, mask = hand.turn, hand.legal_mask(hand.turn)
                moves = [DECK[i] for i in range(52) if mask >> i & 1]
                for card in moves:
                    if card in node.children:
                        node.children[card].available += 1
                new = [c for c in moves if c not in node.children]
                if new:  # a card never tried here: add it, then roll out
                    card = self.rng.choice(new)
                    node.children[card] = child = Node(seat)
                    child.available = 1
                    hand.play(seat, card)
                    path.append(child)
                    break
                card = max(moves, key=lambda c: ucb(node.children[c]))
                hand.play(seat, card)
                node = node.children[card]
                path.append(node)
            points = rollout(hand, ROLLOUT_RULES, self.rng.getrandbits(30))  # the rest of the hand
            for n in path:  # each node scored for the seat that chose it: fewer points is better
                n.visits += 1
                n.total -= points[n.seat] / 26
        return max(root.children, key=lambda c: root.children[c].visits)


def ucb(node, explore=0.7):
    return node.total / node.visits + explore * math.sqrt(math.log(node.available) / node.visits)


if __name__ == "__main__":
    serve(SmallSearch(), port=50051)
