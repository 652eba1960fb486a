"""The agent's tool names, as the design card lists them (tests check the code against these)."""

READ_ONLY_TOOLS = frozenset(
    {
        "repo_info",
        "list_files",
        "rg_search",
        "read_file",
        "read_file_snippet",
        "git_status",
        "git_diff",
        "git_log",
    }
)
BUILT_IN_TOOLS = READ_ONLY_TOOLS | {
    "propose_patch_unified",
    "propose_patch",
    "show_patch",
    "apply_patch",
    "run_cmd",
    "run_tests",
}
