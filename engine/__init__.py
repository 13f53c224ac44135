"""Pure game rules: vote validity, tally, ties, cards, game state. No I/O, no clock."""
