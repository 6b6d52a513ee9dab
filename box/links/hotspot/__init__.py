"""The box's own Wi-Fi (`gravebox hotspot`, gravebox-hotspot.service): an access point through
NetworkManager when the box has had no network for a while, stopped when the owner's is back.

The box itself has no network (PrivateNetwork=yes): this process, beside it like the page and
`gravebox mqtt`, looks at the network, decides (`decide.py`, a pure function of what it saw and
when), acts through a small port (`network.py`: nmcli, or a fake) and tells the box over the
control socket what its Wi-Fi is, so the OLED's *Phone page* can show the codes that join it.
"""

from box.links.hotspot.decide import Decider, Seen
from box.links.hotspot.network import FakeNetwork, Network, Nmcli, WifiCredentials

__all__ = ["Decider", "FakeNetwork", "Network", "Nmcli", "Seen", "WifiCredentials"]
