"""Declared dependencies (read safely from an untrusted repository) and the prepare plan."""

from __future__ import annotations

from lsp_agent.cli.project_prepare import prepare_command
from sandbox.project_envs.python_deps import declared, dependency_key
from sandbox.project_envs.python_env import download_argv, env_status, plan, ready_env
from tests.repo_samples import write


def test_pyproject_requirements_and_test_groups_and_uv_lock_pins(tmp_path):
    repo = write(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "x"\ndependencies = ["pyyaml>=6", '
            "\"attrs; python_version >= '3.8'\"]\n"
            '[project.optional-dependencies]\ntest = ["six"]\ndocs = ["sphinx"]\n'
            '[dependency-groups]\ndev = ["pytest>=7", {include-group = "test"}]\n',
            "uv.lock": 'version = 1\n[[package]]\nname = "pyyaml"\nversion = "6.0.2"\n'
            'source = { registry = "https://pypi.org/simple" }\n'
            '[[package]]\nname = "x"\nversion = "0"\nsource = { editable = "." }\n',
        },
    )
    deps = declared(repo)
    assert deps.files == ["pyproject.toml", "uv.lock"]
    assert deps.requirements == [
        "pyyaml>=6",
        'attrs; python_version >= "3.8"',
        "six",
        "pytest>=7",
    ]
    assert deps.constraints == ["pyyaml==6.0.2"]


def test_requirements_files_cannot_redirect_pip_or_fetch_urls(tmp_path):
    repo = write(
        tmp_path,
        {
            "requirements.txt": "--index-url https://evil.example/simple\n"
            "--extra-index-url https://evil.example/more\n"
            "--trusted-host evil.example\n-f https://evil.example/wheels\n"
            "-e .\nevil @ https://evil.example/evil.whl\n"
            "git+https://evil.example/repo.git\n./local-dir\n"
            "requests==2.32.0 --hash=sha256:abc  # pinned\n-r requirements-dev.txt\n"
            "-r ../../etc/passwd\n",
            "requirements-dev.txt": "pytest\n",
        },
    )
    deps = declared(repo)
    assert sorted(deps.requirements) == ["pytest", "requests==2.32.0"]
    assert all("evil" not in line for line in deps.requirements + deps.constraints)
    assert len(deps.skipped) == 9
    argv = download_argv(deps, tmp_path / "wheels", tmp_path)
    assert "--only-binary=:all:" in argv
    assert not any("evil" in part for part in argv)
    assert (tmp_path / "requirements.txt").read_text() != ""


def test_key_changes_with_the_dependency_files_and_readiness_follows(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    repo = write(tmp_path / "repo", {"requirements.txt": "six\n"})
    first = dependency_key(repo)
    prepared = plan(repo)
    assert prepared is not None and prepared.key == first
    assert ready_env(repo) is None
    assert "not prepared" in env_status(repo)
    prepared.target.mkdir(parents=True)
    (prepared.target / ".lsp-agent-env.json").write_text("{}")
    assert ready_env(repo) == prepared.target
    assert env_status(repo).startswith("ready")
    (repo / "requirements.txt").write_text("six\nattrs\n")
    assert dependency_key(repo) != first
    assert ready_env(repo) is None


def test_nothing_declared_means_no_environment(tmp_path):
    assert dependency_key(tmp_path) is None
    assert plan(tmp_path) is None
    assert env_status(tmp_path) == "no declared Python dependencies"


def test_prepare_asks_first_and_refuses_without_a_terminal(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    repo = write(tmp_path / "repo", {"requirements.txt": "six\n"})
    assert prepare_command(repo, yes=False, interactive=False) == 2
    assert "pass --yes" in capsys.readouterr().err
    assert prepare_command(repo, yes=False, interactive=True, ask=lambda _: "n") == 2
    err = capsys.readouterr().err
    assert "requirements: six" in err and "no network" in err
    assert not (tmp_path / "data" / "lsp-agent" / "envs").exists()


def test_a_refused_node_part_is_shown_before_consent_and_fails_the_command(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    files = {"package.json": '{"dependencies": {"left-pad": "^1"}}', "yarn.lock": "# yarn\n"}
    node_only = write(tmp_path / "node-only", files)
    assert prepare_command(node_only, yes=True) == 1  # nothing to consent to
    assert "sandbox prepare: node: yarn.lock (yarn) is not supported" in capsys.readouterr().err
    both = write(tmp_path / "both", {**files, "requirements.txt": "six\n"})
    assert prepare_command(both, yes=False, interactive=False) == 2
    err = capsys.readouterr().err
    assert "requirements: six" in err and "node refused: yarn.lock (yarn)" in err
    assert not (tmp_path / "data" / "lsp-agent" / "envs").exists()


def test_requirements_are_rebuilt_from_their_parts_never_passed_through(tmp_path):
    repo = write(
        tmp_path,
        {
            "requirements.txt": "tools/evilpkg\n./evil\nevil.zip\n"
            "PyYAML [CLI,Extra] >= 6 ; python_version>'3.8'\n",
            "pyproject.toml": '[project]\nname = "x"\n'
            'dependencies = ["six\\n./tools/evilpkg", "ok\\r", "a @ file:///x", "b==1"]\n',
            "uv.lock": '[[package]]\nname = "../x"\nversion = "1"\nsource = { registry = "r" }\n'
            '[[package]]\nname = "Fine_Name"\nversion = "01.0"\nsource = { registry = "r" }\n',
        },
    )
    deps = declared(repo)
    assert deps.requirements == ["ok", "b==1", 'pyyaml[cli,extra]>=6; python_version > "3.8"']
    assert deps.constraints == ["fine-name==1.0"]  # "../x" is not a name
    assert "pyproject.toml: 'six\\n./tools/evilpkg'" in deps.skipped
    assert "requirements.txt: tools/evilpkg" in deps.skipped
    assert "requirements.txt: evil.zip" in deps.skipped
