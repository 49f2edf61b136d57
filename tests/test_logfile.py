"""The log file: numbering, locking, torn lines, reading both ways, finding by seq."""

import subprocess
import sys
import textwrap

import pytest
from nodwyn.errors import TaskBusy
from nodwyn.log import locks, logfile, records
from nodwyn.log.writer import Writer, torn_path

START = records.SessionStart(project="/p", origin=records.Origin(tool="nodwyn"))


@pytest.fixture
def log(tmp_path):
    path = tmp_path / "t1.jsonl"
    with Writer(path, start=START) as writer:
        writer.append([records.Message(text=f"message {n}") for n in range(1, 6)])
    return path


def test_the_writer_numbers_records_from_one_without_gaps(log):
    seqs = [record.seq for _, _, record in logfile.read(log)]
    assert seqs == [1, 2, 3, 4, 5, 6]


def test_the_writer_stamps_the_time_unless_the_record_has_one(tmp_path):
    path = tmp_path / "t.jsonl"
    with Writer(path, start=START) as writer:
        kept, stamped = writer.append(
            [records.Message(text="a", at="2025-01-02T03:04:05.678Z"), records.Message(text="b")]
        )
    assert kept.at == "2025-01-02T03:04:05.678Z"
    assert stamped.at.endswith("Z") and stamped.at > "2026"


def test_a_reopened_writer_goes_on_after_the_last_seq(log):
    with Writer(log) as writer:
        (record,) = writer.append([records.Message(text="again")])
    assert record.seq == 7


def test_a_second_writer_in_the_same_process_is_refused_at_once(log):
    with Writer(log), pytest.raises(TaskBusy, match="open in another process"):
        Writer(log)


def test_a_second_writer_in_another_process_is_refused_at_once(log):
    script = textwrap.dedent(f"""
        import sys
        from nodwyn.log.writer import Writer
        from nodwyn.errors import TaskBusy
        try:
            Writer(__import__("pathlib").Path({str(log)!r}))
        except TaskBusy as exc:
            print("refused:", exc)
            sys.exit(3)
    """)
    with Writer(log):
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
        assert done.returncode == 3, done.stderr
        assert "open in another process" in done.stdout
        assert locks.is_locked(log)
    assert not locks.is_locked(log)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_torn_last_line_is_skipped_by_readers_and_cut_off_by_the_next_writer(log):
    whole = log.read_bytes()
    torn = b'{"kind":"message","text":"half a li'
    with open(log, "ab") as handle:
        handle.write(torn)
    problems = []
    assert [r.seq for _, _, r in logfile.read(log, problems=problems)] == [1, 2, 3, 4, 5, 6]
    assert problems == [logfile.Problem(len(whole), logfile.TORN)]

    with Writer(log) as writer:
        (record,) = writer.append([records.Message(text="after the tear")])
    assert record.seq == 7
    data = log.read_bytes()
    assert data.startswith(whole + b'{"kind":"message","text":"after the tear"'), "cut back first"
    assert torn_path(log).read_bytes() == torn + b"\n", "the cut bytes are kept aside"
    problems = []
    assert [r.seq for _, _, r in logfile.read(log, problems=problems)] == [1, 2, 3, 4, 5, 6, 7]
    assert problems == []


def test_a_torn_end_is_kept_aside_once_though_the_cut_was_stopped_after_keeping_it(log):
    whole = log.read_bytes()
    torn = b'{"kind":"message","te'
    with open(log, "ab") as handle:
        handle.write(torn)
    torn_path(log).write_bytes(torn + b"\n")  # kept aside, then the writer was killed
    with Writer(log):
        pass
    assert log.read_bytes() == whole
    assert torn_path(log).read_bytes() == torn + b"\n"


def test_a_record_whole_but_for_its_newline_is_cut_too_and_kept_aside_whole(log):
    whole = log.read_bytes()
    line = records.encode(records.Message(text="no newline", seq=7, at="2026-12-02T10:00:00Z"))
    with open(log, "ab") as handle:
        handle.write(line)
    with Writer(log) as writer:
        assert writer.last_seq == 6  # readers never took it as a record: nor does the writer
    assert log.read_bytes() == whole
    assert torn_path(log).read_bytes() == line + b"\n"


def test_reading_backward_gives_the_records_in_reverse(log):
    forward = [(offset, record) for offset, _, record in logfile.read(log)]
    assert list(logfile.read_back(log)) == forward[::-1]


def test_reading_backward_across_chunks_keeps_offsets(tmp_path, monkeypatch):
    monkeypatch.setattr(logfile, "CHUNK", 7)  # lines far longer than a chunk
    path = tmp_path / "t.jsonl"
    with Writer(path, start=START) as writer:
        writer.append([records.Message(text="x" * n) for n in (1, 30, 0, 200)])
    forward = [(offset, record) for offset, _, record in logfile.read(path)]
    assert list(logfile.read_back(path)) == forward[::-1]


def test_reading_forward_from_an_offset_starts_at_that_line(log):
    offsets = [offset for offset, _, _ in logfile.read(log)]
    assert [r.seq for _, _, r in logfile.read(log, offsets[3])] == [4, 5, 6]


def test_a_record_is_found_by_seq_through_the_derived_index(log):
    assert logfile.by_seq(log, 4).text == "message 3"
    assert logfile.seq_index_path(log).exists()
    with Writer(log) as writer:
        writer.append([records.Message(text="seven")])
    assert logfile.by_seq(log, 7).text == "seven"


def test_a_damaged_seq_index_is_rebuilt(log):
    logfile.by_seq(log, 2)
    logfile.seq_index_path(log).write_bytes(b"\x05" * 24)  # offsets that point nowhere
    assert logfile.by_seq(log, 6).text == "message 5"
    logfile.seq_index_path(log).write_bytes(b"garbage")  # not a whole number of offsets
    assert logfile.by_seq(log, 3).text == "message 2"


def test_a_huge_line_is_read_whole(tmp_path):
    path = tmp_path / "t.jsonl"
    text = "word " * 600_000  # 3 MB, longer than a read chunk
    with Writer(path, start=START) as writer:
        writer.append([records.Message(text=text), records.Message(text="next")])
    assert [r.seq for _, _, r in logfile.read(path)] == [1, 2, 3]
    assert logfile.by_seq(path, 2).text == text
    assert next(logfile.read_back(path))[1].text == "next"


def test_every_record_is_redacted_before_it_is_written(tmp_path):
    path = tmp_path / "t.jsonl"
    key = "sk-ant-api03-" + "A" * 40
    with Writer(path, start=START) as writer:
        writer.append([records.Reply(calls=[records.Call(id="1", tool="Bash", input={"k": key})])])
    assert key not in path.read_text()
    assert logfile.by_seq(path, 2).calls[0].input == {"k": "[redacted]"}
