"""The simulator: the box on fakes, played in a terminal or driven by a script."""
