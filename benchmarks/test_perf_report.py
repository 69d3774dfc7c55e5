"""perf_report.py: each CPU generation keeps its own section of docs/performance.md (three
generations of AMD EPYC VM report the same model name), and the peer's figure is its fastest
round among those its memory floor allows; the last-level cache is read as the library reads it."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perf_report  # noqa: E402


def cpuinfo(vendor, family, model, name):
    block = (f"processor\t: 0\nvendor_id\t: {vendor}\ncpu family\t: {family}\nmodel\t\t: {model}\n"
             f"model name\t: {name}\n")
    # A second CPU of another model: only the first block counts.
    return block + "\n" + block.replace(f"model\t\t: {model}", "model\t\t: 1")


def test_amd_generations_are_told_apart():
    assert perf_report.cpu_model_name(cpuinfo("AuthenticAMD", 25, 17, "AMD EPYC")) == \
        "AMD EPYC (Zen 4, model 11h)"
    assert perf_report.cpu_model_name(cpuinfo("AuthenticAMD", 25, 1, "AMD EPYC")) == \
        "AMD EPYC (Zen 3, model 01h)"
    assert perf_report.cpu_model_name(cpuinfo("AuthenticAMD", 26, 2, "AMD EPYC")) == \
        "AMD EPYC (Zen 5, model 02h)"


def test_other_vendors_name_family_and_model():
    name = "Intel(R) Xeon(R) Processor"
    assert perf_report.cpu_model_name(cpuinfo("GenuineIntel", 6, 207, name)) == \
        f"{name} (family 6, model 207)"


def test_section_markers_carry_the_generation():
    perf_report.FORCED, perf_report.CPU_MODEL = "AVX2", "AMD EPYC (Zen 4)"
    begin, end = perf_report.markers()
    assert "--target AVX2 on AMD EPYC (Zen 4): begin" in begin
    assert "--target AVX2 on AMD EPYC (Zen 4): end" in end


def test_no_model_name():
    assert perf_report.cpu_model_name("processor\t: 0\n") is None


def test_peer_takes_its_fastest_credible_round_library_its_median():
    rounds = [{"a": 3.0, "a:cpu": 3.1}, {"a": 1.0, "a:cpu": 1.1}, {"a": 2.0, "a:cpu": 2.2}]
    assert perf_report.best_of_rounds(rounds) == {"a": 1.0, "a:cpu": 1.1}
    assert perf_report.median_of_rounds(rounds)["a"] == 2.0
    # A round below 0.9 x the floor is left out; the CPU time comes from the round kept.
    assert perf_report.best_of_rounds(rounds, lambda case: 2.0) == {"a": 2.0, "a:cpu": 2.2}
    # Every round below it: the fastest, marked.
    assert perf_report.best_of_rounds(rounds, lambda case: 10.0) == {
        "a": 1.0, "a:cpu": 1.1, "a:below_floor": True}
    # A kernel PyTorch lacks (None, with its error) stays so; a round without PyTorch: None.
    lacking = [{"b": None, "b:error": "no kernel"}, {"b": None, "b:error": "no kernel"}]
    assert perf_report.best_of_rounds(lacking) == {"b": None, "b:error": "no kernel"}
    assert perf_report.best_of_rounds([{"a": 1.0}, None]) is None


def test_physical_floor_is_the_least_of_the_case_floors():
    m16 = 1 << 24
    med = {f"Floor/triad/{m16 * 4}/1": 8.0, f"Floor/triad_stream/{m16 * 4}/1": 6.0,
           f"Floor/read/{m16 * 16}/1": 9.0}
    floor_of = perf_report.physical_floor(med, 1)
    assert floor_of("GeluBackward/fp32/16M") == 6.0
    assert floor_of("GroupedBiasAddGrad/fp32/65536x1024_g64") == 9.0
    assert floor_of("GeluBackward/bf16/16M") is None


def test_llc_without_sysfs_is_getconf_capped_at_32_mib(monkeypatch):
    """As the library's simd::last_level_cache_bytes: a VM's CPUID may give the host's L3."""
    def no_sysfs(*args, **kwargs):
        raise OSError("no cache entries")

    class Done:
        def __init__(self, out):
            self.stdout = out

    reported = {"LEVEL3_CACHE_SIZE": "532676608\n", "LEVEL2_CACHE_SIZE": "1048576\n"}
    monkeypatch.setattr(perf_report, "open", no_sysfs, raising=False)
    monkeypatch.setattr(perf_report.subprocess, "run",
                        lambda cmd, **kw: Done(reported[cmd[1]]))
    assert perf_report.llc_mib() == 32.0
    reported["LEVEL3_CACHE_SIZE"] = "16777216\n"
    assert perf_report.llc_mib() == 16.0
    reported["LEVEL3_CACHE_SIZE"] = "0\n"
    assert perf_report.llc_mib() == 1.0


def test_rotation_keeps_twice_the_llc_in_the_other_copies():
    mib = 2**20
    assert perf_report.rotation_copies(192 * mib, 64 * mib) == 2  # fp32 elementwise, 32 MiB LLC
    assert perf_report.rotation_copies(96 * mib, 520 * mib) == 7  # 16-bit, 260 MiB LLC
    assert perf_report.rotation_copies(64 * mib, 64 * mib) == 2
    assert perf_report.rotation_copies(192 * mib, 0) == 1  # scrub or warm mode: one copy


def test_clock_probes_become_ghz_relative_to_the_chain_alone():
    adds = 200_000_000  # bench_impl's context gives it as a string
    med = {"Clock/scalar": adds / 3.4e9, "Clock/fma256": adds / 3.4e9, "Clock/fma512": adds / 2.72e9}
    line = perf_report.clock_line(med, str(adds))
    assert "no vector work 3.40 GHz" in line
    assert "beside 256-bit FMAs 3.40 GHz (1.00x)" in line
    assert "beside 512-bit FMAs 2.72 GHz (0.80x)" in line
    # A CPU without AVX-512 has no such probe; a bench_impl without probes (or without the count in
    # its context), no line.
    assert "512" not in perf_report.clock_line({"Clock/scalar": adds / 3e9}, adds)
    assert perf_report.clock_line({"Floor/triad/1/1": 1.0}, adds) is None
    assert perf_report.clock_line(med, None) is None
