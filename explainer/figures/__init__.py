"""One module per figure: its state class and its browser component."""
