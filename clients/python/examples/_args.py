"""Common command-line arguments of the examples."""
import argparse


def parser(doc: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=doc)
    p.add_argument("--addr", default="127.0.0.1:50051", help="server address (host:port)")
    return p
