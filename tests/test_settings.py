"""Settings and the embeddings key written from several threads at once (the page's requests
run on several): nothing is lost, nothing fails, and the key stays its owner's alone."""

import os
import threading

from nodwyn import settings


def at_once(work, count: int = 4) -> list[str]:
    """Run work(n) on `count` threads together; the errors they raised."""
    errors: list[str] = []

    def run(n: int) -> None:
        try:
            work(n)
        except Exception as exc:  # the test reports them
            errors.append(repr(exc))

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def test_keys_set_from_several_threads_at_once_all_succeed_and_one_is_kept(data_dir):
    data_dir.mkdir(parents=True)

    def keys(n: int) -> None:
        for i in range(100):
            settings.set_embeddings_key(data_dir, f"sk-{n}-{i}")

    assert at_once(keys) == []
    assert settings.embeddings_key(data_dir) in {f"sk-{n}-99" for n in range(4)}
    if os.name == "posix":
        assert settings.key_path(data_dir).stat().st_mode & 0o777 == 0o600
    assert not [p for p in data_dir.iterdir() if p.name.endswith(".tmp")]


def test_folders_followed_from_several_threads_at_once_are_all_kept(data_dir):
    data_dir.mkdir(parents=True)

    def follow(n: int) -> None:
        for i in range(25):
            settings.follow_folder(data_dir, "claude", f"/imports/{n}/{i}")

    assert at_once(follow) == []
    followed = settings.load(data_dir).extra_folders["claude"]
    assert sorted(followed) == sorted(f"/imports/{n}/{i}" for n in range(4) for i in range(25))
