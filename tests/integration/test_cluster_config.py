"""cluster.yaml passes Ray's own cluster-config validation, before and after Ray fills its defaults."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from ray.autoscaler._private.util import prepare_config, validate_config

pytestmark = pytest.mark.integration
CLUSTER = Path(__file__).resolve().parents[2] / "cluster.yaml"


def test_cluster_yaml_is_valid_for_the_ray_cluster_launcher() -> None:
    config = yaml.safe_load(CLUSTER.read_text())
    validate_config(config)
    validate_config(prepare_config(config))
    gpu = config["available_node_types"]["worker.gpu"]
    assert gpu["resources"]["GPU"] == 1
    assert gpu["min_workers"] == 0  # scaled from zero when a Judge asks for a GPU
    assert "GPU" not in config["available_node_types"]["head.cpu"]["resources"]
