"""The flake8 plugin's result cache (frontends/plugin_cache.py): a second flake8 over unchanged files is
answered from it, anything the results depend on changes the key, and a damaged or missing
cache only costs time."""

from __future__ import annotations

import marshal
import multiprocessing
import os
from pathlib import Path

import pytest

from conftest import env_with_a_crashing_check, run, run_flake8 as flake8
from snippets import SGL001_AND_SGL004

from sglang_lint.core import places
from sglang_lint.frontends.plugin_cache import KEEP_FOLDERS, MAX_SHARDS, PluginCache, entry_key, folder_fingerprint

# Mentions a catalog name (SGL004's method) in a way no rule reports.
QUIET = "def set_dflash_layers_to_capture(layers):\n    return layers\n"


def shards(cache: Path) -> list[Path]:
    return sorted(cache.glob("*/*.marshal"))


def entries(cache: Path) -> dict:
    found: dict = {}
    for shard in shards(cache):
        found.update(marshal.loads(shard.read_bytes()))
    return found


def project(tmp_path: Path) -> Path:
    (tmp_path / "bad.py").write_text(SGL001_AND_SGL004)
    (tmp_path / "quiet.py").write_text(QUIET)
    (tmp_path / "plain.py").write_text("import os\n")  # mentions no catalog name: never cached
    return tmp_path


def test_a_second_run_is_answered_from_the_cache_until_the_file_changes(tmp_path):
    folder, cache = project(tmp_path), tmp_path / "cache"
    command = ("--select", "SGL", "-j", "2", "--sglang-cache-dir", str(cache), "bad.py", "quiet.py", "plain.py")
    fresh = flake8("--select", "SGL", "--sglang-no-cache", "bad.py", "quiet.py", "plain.py", cwd=folder)
    assert [line.split(" ", 2)[:2] for line in fresh.stdout.splitlines()] == [
        ["bad.py:2:31:", "SGL001"], ["bad.py:3:36:", "SGL004"],
    ]
    first = flake8(*command, cwd=folder)
    assert first.stdout == fresh.stdout and first.returncode == 1
    # Two worker processes, one shard each; an entry for each file that mentions a catalog name.
    assert len(entries(cache)) == 2 and 1 <= len(shards(cache)) <= 2
    assert sorted(len(value) for value in entries(cache).values()) == [0, 2]
    assert (cache / ".gitignore").read_text().endswith("*\n")

    # What the cache holds is what the next run reports: every entry says something new.
    for shard in shards(cache):
        shard.write_bytes(marshal.dumps({key: ((1, 0, "SGL001 from the cache"),) for key in marshal.loads(
            shard.read_bytes())}))
    second = flake8(*command, cwd=folder)
    assert sorted(second.stdout.splitlines()) == [
        "bad.py:1:1: SGL001 from the cache", "quiet.py:1:1: SGL001 from the cache",
    ]

    # A changed file is linted again; so is every file for another release or other codes.
    (folder / "quiet.py").write_text(QUIET + "# edited\n")
    third = flake8(*command, cwd=folder)
    assert third.stdout == "bad.py:1:1: SGL001 from the cache\n"
    for other in (("--sglang-version", "0.5.6"), ("--select", "SGL001,SGL004"), ("--extend-ignore", "SGL004")):
        again = flake8(*command, *other, cwd=folder)
        assert again.stdout == flake8(*command, *other, "--sglang-no-cache", cwd=folder).stdout, other
        assert "from the cache" not in again.stdout


def test_no_cache_reads_and_writes_nothing(tmp_path):
    folder, cache = project(tmp_path), tmp_path / "cache"
    result = flake8("--select", "SGL", "--sglang-no-cache", "--sglang-cache-dir", str(cache), "bad.py",
                    cwd=folder)
    assert result.stdout.count(" SGL0") == 2 and not cache.exists()


def test_the_cache_folder_can_be_set_in_flake8s_configuration(tmp_path):
    folder = project(tmp_path)
    (folder / "setup.cfg").write_text("[flake8]\nselect = SGL\nsglang-cache-dir = .sglang_lint_cache\n")
    result = run("-m", "flake8", "bad.py", cwd=folder)
    assert result.stdout.count(" SGL0") == 2
    assert len(entries(folder / ".sglang_lint_cache")) == 1


def test_a_damaged_shard_is_ignored_and_the_run_is_right(tmp_path):
    folder, cache = project(tmp_path), tmp_path / "cache"
    command = ("--select", "SGL", "--sglang-cache-dir", str(cache), "bad.py")
    expected = flake8(*command, cwd=folder).stdout
    (shard,) = shards(cache)
    (shard.parent / "cut.marshal").write_bytes(shard.read_bytes()[:-5])
    (shard.parent / "noise.marshal").write_bytes(b"\x00not marshal at all")
    (shard.parent / "list.marshal").write_bytes(marshal.dumps([1, 2, 3]))
    shard.unlink()
    result = flake8(*command, cwd=folder)
    assert result.stdout == expected and result.stderr == ""


def test_the_key_changes_with_each_thing_the_results_depend_on():
    base = entry_key("x = 1\n", ("pkg.mod", False), "all", ("0.5.23",))
    assert base == entry_key("x = 1\n", ("pkg.mod", False), "all", ("0.5.23",))
    assert len({base, entry_key("x = 2\n", ("pkg.mod", False), "all", ("0.5.23",)),
                entry_key("x = 1\n", ("pkg.other", False), "all", ("0.5.23",)),
                entry_key("x = 1\n", ("pkg.mod", True), "all", ("0.5.23",)),
                entry_key("x = 1\n", ("pkg.mod", False), "SGL001", ("0.5.23",)),
                entry_key("x = 1\n", ("pkg.mod", False), "all", ("0.5.6",)),
                entry_key("x = 1\n", ("pkg.mod", False), "all", ())}) == 7
    # (surrogates flake8 may hand over from an undecodable file hash too)
    assert entry_key("s = '\udcff'\n", None, "all", ()) != entry_key("s = '?'\n", None, "all", ())
    assert folder_fingerprint("rules-a") == folder_fingerprint("rules-a") != folder_fingerprint("rules-b")


def test_an_edited_module_of_sglang_lint_starts_a_new_cache(tmp_path, monkeypatch):
    package = tmp_path / "sglang_lint"
    (package / "checks").mkdir(parents=True)
    (package / "engine.py").write_text("A = 1\n")
    (package / "checks" / "when.py").write_text("B = 1\n")
    monkeypatch.setattr(places, "_PACKAGE", str(package))
    monkeypatch.setattr(places, "_package_stamp", None)  # (a new process: the package read again)
    before = folder_fingerprint("rules")
    assert "checks/when.py" in places.package_stamp()
    os.utime(package / "checks" / "when.py", ns=(1, 1))
    assert folder_fingerprint("rules") == before  # (a process reads its package once)
    monkeypatch.setattr(places, "_package_stamp", None)
    assert folder_fingerprint("rules") != before


def _shards_past_the_limit(folder: Path) -> None:
    folder.mkdir()
    for number in range(MAX_SHARDS + 1):
        (folder / f"{number}-0000.marshal").write_bytes(marshal.dumps({bytes([number]): ((number, 0, "x"),)}))


def _sizes(folder: Path) -> list[int]:
    return sorted(len(marshal.loads(p.read_bytes())) for p in folder.glob("*.marshal"))


def test_shards_past_the_limit_are_merged_into_one(tmp_path):
    folder = tmp_path / "fingerprint"
    _shards_past_the_limit(folder)
    cache = PluginCache(str(folder))
    assert cache.get(bytes([3])) == ((3, 0, "x"),)
    cache.put(b"new", [(9, 1, "SGL001 m")])
    cache.save()
    # its own shard, and the union of everything it read with it
    assert _sizes(folder) == [1, MAX_SHARDS + 2]
    assert max((marshal.loads(p.read_bytes()) for p in folder.glob("*.marshal")), key=len) == {
        **{bytes([n]): ((n, 0, "x"),) for n in range(MAX_SHARDS + 1)}, b"new": ((9, 1, "SGL001 m"),),
    }
    cache.put(b"later", [])  # a later write of its shard keeps the union
    cache.save()
    assert _sizes(folder) == [2, MAX_SHARDS + 2] and not (folder / "merging.lock").exists()
    # Below the limit, a process writes only what it made.
    again = PluginCache(str(folder))
    assert again.get(b"new") == ((9, 1, "SGL001 m"),)
    again.put(b"other", [])
    again.save()
    assert _sizes(folder) == [1, 2, MAX_SHARDS + 2]


def test_only_the_newest_other_fingerprints_folders_are_kept(tmp_path):
    own = tmp_path / ("f" * 32)
    others = [tmp_path / (f"{number:x}" * 32) for number in range(KEEP_FOLDERS + 2)]
    for age, folder in enumerate(others):  # the first the newest
        folder.mkdir()
        (folder / "1-a.marshal").write_bytes(marshal.dumps({}))
        os.utime(folder, ns=(10**18 - age * 10**9, 10**18 - age * 10**9))
    (tmp_path / "mine").mkdir()  # the user's own folder beside the cache's: not a fingerprint
    (tmp_path / ("0" * 31 + ".txt")).write_text("a file as long as a fingerprint")
    cache = PluginCache(str(own))
    cache.put(b"key", [])
    cache.save()
    kept = sorted(path.name for path in tmp_path.iterdir())
    assert kept == sorted([own.name, *(folder.name for folder in others[:KEEP_FOLDERS]), "mine", "0" * 31 + ".txt",
                           ".gitignore"])


def test_many_workers_past_the_limit_write_one_union(tmp_path):
    # (flake8 -j N: every worker reads the same shards; the first to save merges them)
    folder = tmp_path / "fingerprint"
    _shards_past_the_limit(folder)
    workers = [PluginCache(str(folder)) for _ in range(3)]
    for number, worker in enumerate(workers):
        worker.get(b"?")
        worker.put(bytes([100 + number]), [])
    for worker in workers:
        worker.save()
    assert _sizes(folder) == [1, 1, 1, MAX_SHARDS + 2]


def test_a_merge_waits_for_another_and_takes_over_a_stale_lock(tmp_path):
    folder = tmp_path / "fingerprint"
    _shards_past_the_limit(folder)
    lock = folder / "merging.lock"
    lock.touch()  # another process is merging
    cache = PluginCache(str(folder))
    cache.put(b"new", [])
    cache.save()
    assert _sizes(folder) == [1] * (MAX_SHARDS + 2)
    os.utime(lock, (1, 1))  # left by a process that died long ago
    cache.save()
    assert _sizes(folder) == [1, MAX_SHARDS + 2] and not lock.exists()


def _in_a_forked_child(cache: PluginCache) -> None:
    cache.put(b"child", [(2, 0, "SGL004 m")])
    cache.save()


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="no fork on this platform")
def test_a_forked_worker_writes_its_own_entries_and_not_its_parents(tmp_path):
    folder = tmp_path / "fingerprint"
    cache = PluginCache(str(folder))
    cache.put(b"parent", [(1, 0, "SGL001 m")])  # not yet written: a forked worker inherits it
    child = multiprocessing.get_context("fork").Process(target=_in_a_forked_child, args=(cache,))
    child.start()
    child.join()
    assert child.exitcode == 0
    cache.save()
    written = sorted((marshal.loads(p.read_bytes()) for p in folder.glob("*.marshal")), key=sorted)
    assert written == [{b"child": ((2, 0, "SGL004 m"),)}, {b"parent": ((1, 0, "SGL001 m"),)}]


def test_a_rules_crash_is_reported_but_not_kept(tmp_path):
    # A sitecustomize makes SGL004's check raise inside flake8: a crash may come from outside the
    # file and the rules (here a patch; a recursion limit, memory), so the next run tries again.
    folder, cache = project(tmp_path), tmp_path / "cache"
    result = run("-m", "flake8", "--isolated", "--select", "SGL", "--sglang-cache-dir", str(cache), "bad.py",
                 cwd=folder, env=env_with_a_crashing_check(tmp_path))
    assert [line.split()[1] for line in result.stdout.splitlines()] == ["SGL900", "SGL001"]
    assert entries(cache) == {}
    assert flake8("--select", "SGL", "--sglang-cache-dir", str(cache), "bad.py", cwd=folder).stdout.count(" SGL0") == 2
    assert [len(value) for value in entries(cache).values()] == [2]
