"""The wiring diagrams: the netlist of each Pi model from the pin map, drawn as SVG.

`python -m box.diagrams` writes `wiring/wiring-<model>.svg`; it imports the pin map (box.storage) only.
"""
