#!/usr/bin/python3
"""Parse a textfile written by `hardinit audit --format prometheus` with
prometheus_client's parser (the second real parser next to promtool) and
print one line per sample, "name{k=v,...} value" with the labels sorted,
for the bats tests to match. Fails (exit 1, saying why) on what node_exporter
or Prometheus would refuse or frown upon: a family without HELP or TYPE, a
name outside hardinit_, a timestamp, a duplicate series, a value that is not
a finite number."""
import math
import sys

from prometheus_client.parser import text_string_to_metric_families


def fail(why):
    print(f"fleet-parse: {why}", file=sys.stderr)
    sys.exit(1)


def main(path):
    text = open(path, encoding="utf-8").read()
    if not text.endswith("\n"):
        fail("the file does not end with a newline")
    helps = {l.split()[2] for l in text.splitlines() if l.startswith("# HELP ")}
    types = {l.split()[2] for l in text.splitlines() if l.startswith("# TYPE ")}
    seen = set()
    for fam in text_string_to_metric_families(text):
        if not fam.name.startswith("hardinit_"):
            fail(f"{fam.name}: not in the hardinit_ namespace")
        if fam.name not in helps or fam.name not in types or fam.type != "gauge":
            fail(f"{fam.name}: needs HELP and TYPE gauge lines (type {fam.type})")
        for s in fam.samples:
            if s.timestamp is not None:
                fail(f"{s.name}: has a timestamp")
            if not math.isfinite(s.value):
                fail(f"{s.name}: value {s.value}")
            labels = ",".join(f"{k}={v}" for k, v in sorted(s.labels.items()))
            key = f"{s.name}{{{labels}}}"
            if key in seen:
                fail(f"duplicate series {key}")
            seen.add(key)
            value = int(s.value) if s.value == int(s.value) and "duration" not in s.name else s.value
            print(f"{key} {value}")


if __name__ == "__main__":
    main(sys.argv[1])
