"""Partition labels, with and without the partition keys the dataset declares."""

from parquet_core_integrations.kartothek.naming import parse_label, partition_label


def test_declared_keys_keep_unescaped_slashes():
    # as Kartothek 5.3 writes "a/b" and "q/1": the "/" is not percent-encoded
    label = "P=a/b/Q=q/1/0123abcd"
    assert parse_label(label) == [("P", "a"), ("Q", "q")]           # what Kartothek reads back
    assert parse_label(label, ["P", "Q"]) == [("P", "a/b"), ("Q", "q/1")]
    assert parse_label("P=/x/Q=z/lbl", ["P", "Q"]) == [("P", "/x"), ("Q", "z")]
    assert parse_label("P=a%2Fb%20c/lbl", ["P"]) == [("P", "a/b c")]
    assert parse_label("P=a//Q=/lbl", ["P", "Q"]) == [("P", "a/"), ("Q", "")]


def test_labels_not_following_the_keys_parse_as_before():
    assert parse_label("Q=1/P=2/lbl", ["P", "Q"]) == [("Q", "1"), ("P", "2")]
    assert parse_label("lbl", ["P"]) == []
    assert parse_label("P=1/lbl", ["P", "Q"]) == [("P", "1")]


def test_our_labels_round_trip():
    values = [("P", "a/b"), ("Q", "x=y&%/ü")]
    label = partition_label(values, "base")
    assert label.count("/") == 2          # ours percent-encodes "/" in values
    assert parse_label(label, ["P", "Q"]) == values == parse_label(label)
