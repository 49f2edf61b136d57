"""Prices come from the library's bundled data and our own rows, with no network at run time."""

import subprocess
import sys

import pytest
from nodwyn.importers import prices
from nodwyn.log import records

PRICE_WITH_NO_NETWORK = """
import socket

def refused(*args, **kwargs):
    raise OSError("no network in this test")

socket.socket.connect = refused
socket.create_connection = refused
socket.getaddrinfo = refused
from nodwyn.importers import prices
from nodwyn.log import records
print(prices.cost("gpt-5.4", records.Usage(input=1000)))
from genai_prices import data_snapshot
print(data_snapshot.get_snapshot().from_auto_update)
"""


def test_a_price_is_read_with_every_connection_refused_and_from_the_bundled_data():
    done = subprocess.run([sys.executable, "-c", PRICE_WITH_NO_NETWORK], capture_output=True,
                          text=True, timeout=120, check=True)  # fmt: skip
    assert done.stdout.split() == ["0.0025", "False"]


def test_each_row_of_our_own_table_says_where_its_prices_come_from():
    for model, row in prices.table().items():
        assert row["source"].strip(), model


CORPUS_MODELS = ["gpt-5.6-sol", "glm-5.2", "gemini-3.1-pro-preview", "claude-sonnet-4.6",
                 "claude-opus-4-7", "gpt-5.6-luna"]  # fmt: skip


@pytest.mark.parametrize("model", CORPUS_MODELS)
def test_the_models_the_corpus_names_have_a_price(model):
    assert prices.cost(model, records.Usage(input=1000, output=1000)) > 0
