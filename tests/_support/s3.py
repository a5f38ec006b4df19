"""Client options for the moto S3 server the dataset tests start on 127.0.0.1 (dummy credentials)."""

from __future__ import annotations

from typing import Any


def s3_options(endpoint: str) -> dict[str, Any]:
    """``storage_options`` / ``s3fs.S3FileSystem`` arguments for the local server at *endpoint*."""
    return {"key": "testing", "secret": "testing", "client_kwargs": {"endpoint_url": endpoint,
                                                                     "region_name": "us-east-1"},
            "use_listings_cache": False, "skip_instance_cache": True}
