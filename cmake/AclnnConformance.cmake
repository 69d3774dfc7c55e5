# aclnn_add_conformance_test: a CTest test that runs an aclnn-conform campaign of a library and
# passes only on a CONFORMANT verdict (the campaign's exit status 0; any other status fails).
#
#   aclnn_add_conformance_test(<name>
#     SUT <target | path | builtin>      library under test (a target's file is used)
#     [OPS <op>...]                      ops to test (default: all)
#     [SOC <product>]                    ascend910b (default), ascend910_93, ascend910, ascend310p
#     [BUDGET <duration> | CASES <n>]    time budget (e.g. 30s, 2m) or number of cases
#                                        (default: 60s; CASES makes the test reproducible)
#     [TIER smoke|ci|nightly] [SEED <n>] [JOBS <n>] [POLICY ulp|ascend]
#     [SHARD <I/N>]                      default 0/1: the whole seed space, even when the test
#                                        runs inside a Slurm array or a Kubernetes Indexed Job
#     [EXPECT_VARIANTS <variant>...]     variants the library is known to follow
#     [SKIPS <file>] [XFAILS <file>]     clause lists, as for `aclnn-conform run`
#     [LABELS <label>...] [TIMEOUT <s>]  CTest properties (default timeout: budget x 2 + 120 s)
#     [OUTPUT_DIRECTORY <dir>]           default: ${CMAKE_CURRENT_BINARY_DIR}/aclnn-conformance/<name>
#     [EXTRA_ARGS <arg>...])             passed to `aclnn-conform run` as they are
#
# The reports (report.xml = JUnit for CI, report.html, report.md, report.json), the repro programs
# and the corpus of counterexamples (replayed first by the next run) land in OUTPUT_DIRECTORY.
# The test reserves JOBS processors (CTest PROCESSORS), so `ctest -j` does not oversubscribe the
# machine; without JOBS the campaign uses every core.

function(aclnn_add_conformance_test name)
  set(one SUT SOC BUDGET CASES TIER SEED JOBS POLICY SHARD SKIPS XFAILS TIMEOUT OUTPUT_DIRECTORY)
  set(multi OPS EXPECT_VARIANTS LABELS EXTRA_ARGS)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "${one}" "${multi}")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "aclnn_add_conformance_test(${name}): unknown arguments "
                        "'${arg_UNPARSED_ARGUMENTS}'")
  endif()
  if(NOT arg_SUT)
    message(FATAL_ERROR "aclnn_add_conformance_test(${name}): SUT is required (a library target, "
                        "the path of a shared library exporting the aclnn ABI, or builtin)")
  endif()
  if(arg_BUDGET AND arg_CASES)
    message(FATAL_ERROR "aclnn_add_conformance_test(${name}): give BUDGET or CASES, not both")
  endif()
  if(TARGET aclnn::conform)
    set(cli aclnn::conform)
  elseif(TARGET aclnn-conform)  # inside the aclnn-conform build itself
    set(cli aclnn-conform)
  else()
    message(FATAL_ERROR "aclnn_add_conformance_test(${name}): no aclnn::conform executable; "
                        "find_package(aclnn_conform) first (a package built with the reference)")
  endif()

  if(arg_SUT STREQUAL "builtin" AND TARGET aclnn::cpu)
    # The package's library by its installed path (the CLI's own `builtin` names its build tree).
    set(sut "$<TARGET_FILE:aclnn::cpu>")
  elseif(TARGET ${arg_SUT})
    set(sut "$<TARGET_FILE:${arg_SUT}>")
  else()
    set(sut "${arg_SUT}")
  endif()
  set(out "${arg_OUTPUT_DIRECTORY}")
  if(NOT out)
    set(out "${CMAKE_CURRENT_BINARY_DIR}/aclnn-conformance/${name}")
  endif()

  set(args run --sut "${sut}" --out "${out}" --quiet)
  if(arg_OPS)
    list(JOIN arg_OPS "," ops)
    list(APPEND args --ops "${ops}")
  endif()
  if(NOT arg_BUDGET AND NOT arg_CASES)
    set(arg_BUDGET 60s)
  endif()
  if(arg_BUDGET)
    list(APPEND args --budget "${arg_BUDGET}")
  else()
    list(APPEND args --cases "${arg_CASES}")
  endif()
  # Without --shard, `run` would take a shard from the scheduler's environment: a test stands for
  # the whole campaign unless it says otherwise.
  if(NOT arg_SHARD)
    set(arg_SHARD 0/1)
  endif()
  foreach(opt SOC TIER SEED JOBS POLICY SHARD SKIPS XFAILS)
    if(DEFINED arg_${opt})
      string(TOLOWER "${opt}" flag)
      list(APPEND args --${flag} "${arg_${opt}}")
    endif()
  endforeach()
  foreach(variant ${arg_EXPECT_VARIANTS})
    list(APPEND args --expect-variant "${variant}")
  endforeach()
  list(APPEND args ${arg_EXTRA_ARGS})

  add_test(NAME ${name} COMMAND ${cli} ${args})

  # A time-budgeted run ends on its own; the timeout only catches a campaign that cannot end.
  set(timeout "${arg_TIMEOUT}")
  if(NOT timeout AND arg_BUDGET MATCHES "^([0-9]+)(s|m|h)?$")
    set(seconds ${CMAKE_MATCH_1})
    if(CMAKE_MATCH_2 STREQUAL "m")
      math(EXPR seconds "${seconds} * 60")
    elseif(CMAKE_MATCH_2 STREQUAL "h")
      math(EXPR seconds "${seconds} * 3600")
    endif()
    math(EXPR timeout "${seconds} * 2 + 120")
  endif()
  set_tests_properties(${name} PROPERTIES ATTACHED_FILES_ON_FAIL "${out}/report.md")
  if(arg_JOBS)
    set_tests_properties(${name} PROPERTIES PROCESSORS ${arg_JOBS})
  endif()
  if(timeout)
    set_tests_properties(${name} PROPERTIES TIMEOUT ${timeout})
  endif()
  if(arg_LABELS)
    set_tests_properties(${name} PROPERTIES LABELS "${arg_LABELS}")
  endif()
endfunction()
