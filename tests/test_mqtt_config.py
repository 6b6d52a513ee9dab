"""The settings' [mqtt] table: off unless there, each mistake one line with file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from box.cli.main import main
from box.errors import ConfigError
from box.storage.config import load_config


def write(tmp_path: Path, text: str) -> Path:
    config = tmp_path / "config.toml"
    config.write_text(text, encoding="utf-8")
    return config


def test_mqtt_is_off_unless_configured_and_defaults_follow_the_issue(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, '[box]\nnames = ["Ann"]\n')).mqtt is None
    mqtt = load_config(write(tmp_path, '[mqtt]\nhost = "broker.home"\n')).mqtt
    assert mqtt is not None and (mqtt.address, mqtt.discovery, mqtt.discovery_prefix) == ("broker.home:1883", True, "homeassistant")
    assert mqtt.base_topic.startswith("gravebox/") and mqtt.username is None and mqtt.password is None
    ca = tmp_path / "ca.pem"
    ca.write_text("not checked here\n")
    tls = load_config(write(tmp_path, f'[mqtt]\nhost = "b"\nca_file = "{ca}"\nbase_topic = "home/box/"\n')).mqtt
    assert tls is not None and tls.port == 8883 and tls.ca_file == ca and tls.base_topic == "home/box"


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("[mqtt]\nport = 1883\n", ["config.toml", "mqtt.mqtt", "host"]),
        ('[mqtt]\nhost = "b"\nport = 70000\n', ["config.toml:3:", "mqtt.port", "1..65535"]),
        ('[mqtt]\nhost = "b"\nbase_topic = "a/#"\n', ["config.toml:3:", "mqtt.base_topic", "no +, #"]),
        ('[mqtt]\nhost = "b"\ndiscovery = "yes"\n', ["config.toml:3:", "mqtt.discovery", "true or false"]),
        ('[mqtt]\nhost = "b"\npasword_file = "x"\n', ["config.toml:3:", "mqtt.pasword_file", "unknown setting"]),
        ('[mqtt]\nhost = "b"\nca_file = "/nonexistent.pem"\n', ["config.toml:3:", "mqtt.ca_file", "no such file"]),
        ("mqtt = 1\n", ["config.toml:1:", "mqtt must be a section"]),
    ],
)
def test_a_bad_mqtt_setting_is_one_line(tmp_path: Path, text: str, parts: list[str]) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path, text))
    message = str(caught.value)
    assert "\n" not in message and all(part in message for part in parts), message


def test_a_password_file_others_may_read_is_refused_and_the_password_never_shown(tmp_path: Path) -> None:
    secret = tmp_path / "password"
    secret.write_text("c0ffin-lid\n")
    config = write(tmp_path, f'[mqtt]\nhost = "b"\nusername = "box"\npassword_file = "{secret}"\n')
    secret.chmod(0o644)
    with pytest.raises(ConfigError, match=r"config.toml:4: mqtt.password_file: .*others may read it") as caught:
        load_config(config, secrets=True)
    assert "c0ffin" not in str(caught.value)
    secret.chmod(0o600)
    mqtt = load_config(config, secrets=True).mqtt
    assert mqtt is not None and mqtt.password == "c0ffin-lid" and "c0ffin" not in repr(mqtt)
    secret.unlink()
    secret.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(ConfigError, match=r"mqtt\.password_file"):
        load_config(config, secrets=True)


def test_only_gravebox_mqtt_reads_the_password_file_and_the_box_never_fails_over_it(tmp_path: Path) -> None:
    secret = tmp_path / "password"
    secret.write_text("c0ffin-lid\n")
    secret.chmod(0o644)  # refused by gravebox mqtt, and none of the box's or the page's business
    config = write(tmp_path, f'[mqtt]\nhost = "b"\nusername = "box"\npassword_file = "{secret}"\n')
    mqtt = load_config(config).mqtt
    assert mqtt is not None and mqtt.password is None
    secret.unlink()  # gone: the box still starts; gravebox mqtt says so in one line
    assert load_config(config).mqtt is not None
    with pytest.raises(ConfigError, match=r"config.toml:4: mqtt.password_file: .*no such"):
        load_config(config, secrets=True)
    assert main(["mqtt", "--config", str(config)]) == 2


def test_the_password_files_group_must_be_the_services_and_its_owner_root_or_the_service(tmp_path: Path) -> None:
    import grp
    import os

    secret = tmp_path / "password"
    secret.write_text("c0ffin-lid\n")
    secret.chmod(0o640)
    config = write(tmp_path, f'[mqtt]\nhost = "b"\nusername = "box"\npassword_file = "{secret}"\n')
    assert load_config(config, secrets=True).mqtt.password == "c0ffin-lid"  # type: ignore[union-attr]
    others = [group.gr_gid for group in grp.getgrall() if group.gr_gid != os.getegid()]
    if os.geteuid() != 0 or not others:
        pytest.skip("changing a file's group to another needs root")
    os.chown(secret, -1, others[0])  # root:users 0640, say: the users could read it
    with pytest.raises(ConfigError, match=r"mqtt.password_file: .*the group .* may read it: chown root:"):
        load_config(config, secrets=True)
    secret.chmod(0o600)  # the group has no rights: whatever it is, it is fine
    assert load_config(config, secrets=True).mqtt.password == "c0ffin-lid"  # type: ignore[union-attr]
    os.chown(secret, 65534, -1)  # nobody's
    with pytest.raises(ConfigError, match=r"owned by another user"):
        load_config(config, secrets=True)


def test_a_bad_mqtt_option_on_the_command_line_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    script = Path(__file__).parent / "scenarios" / "deck-of-death" / "laps-and-start.script"
    assert main(["sim", "--script", str(script), "--config", "/nonexistent.toml", "--mqtt", "no-port"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("gravebox: --mqtt: must be HOST:PORT")


def test_gravebox_mqtt_without_a_broker_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mqtt", "--config", "/nonexistent.toml"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("gravebox: mqtt: no broker: the settings have no [mqtt] table")
    assert main(["mqtt", "--config", "/nonexistent.toml", "--mqtt", "nowhere"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("gravebox: --mqtt: must be HOST:PORT")
