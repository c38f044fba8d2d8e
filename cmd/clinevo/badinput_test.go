package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/config"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/results/sqlite"
)

// refusedInput is one input clinevo refuses, with the message it refuses it
// with. DATA_DIR and FILE in the message stand for the case's data directory
// and config file, as the table of docs/operations.md writes them.
type refusedInput struct {
	name string
	args []string
	env  map[string]string
	file string // the config file's content; "" for none
	want string
}

var badInputs = []refusedInput{
	{"run ID a/b", []string{"stream", "start", "--run", "a/b"}, nil, "",
		`stream start: --run: run ID "a/b" holds '/' at position 2: a run ID takes 1 to 64 letters, digits, '.', '_' and '-', starting with a letter or digit (e.g. e1-2026.11)`},
	{"run ID x y", []string{"stream", "start", "--run", "x y"}, nil, "",
		`stream start: --run: run ID "x y" holds ' ' at position 2: a run ID takes 1 to 64 letters, digits, '.', '_' and '-', starting with a letter or digit (e.g. e1-2026.11)`},
	{"run ID ../../etc", []string{"stream", "start", "--run", "../../etc"}, nil, "",
		`stream start: --run: run ID "../../etc" holds '.' at position 1: a run ID takes 1 to 64 letters, digits, '.', '_' and '-', starting with a letter or digit (e.g. e1-2026.11)`},
	{"run ID a/stream", []string{"stream", "status", "a/stream"}, nil, "",
		`stream status: RUN: run ID "a/stream" holds '/' at position 2: a run ID takes 1 to 64 letters, digits, '.', '_' and '-', starting with a letter or digit (e.g. e1-2026.11)`},
	{"an empty memory query", []string{"memory", "query", ""}, nil, "",
		`memory query: TEXT is empty: give the words to search for, e.g. memory query "chest pain on exertion"`},
	{"a negative as-of", []string{"memory", "query", "chest pain", "--as-of", "-5"}, nil, "",
		`memory query: --as-of -5: want an episode number, 0 or more (0: the empty bank; without --as-of: now)`},
	{"an unknown log format", []string{"export", "inspect", "quick-E1", "--format", "yaml"}, nil, "",
		`export inspect: --format "yaml": want eval (inspect's default, a zip) or json`},
	{"an unknown kind", []string{"memory", "query", "chest pain", "--kind", "bogus"}, nil, "",
		`memory query: --kind "bogus": want one of success, correction, rule, advice, summary, memory, experience, example, strategy`},
	{"no cards", []string{"memory", "query", "chest pain", "--top", "0"}, nil, "",
		`memory query: --top 0: want at least 1 card (without --top: memory.k)`},
	{"a fraction for memory.k", []string{"runs", "list"}, nil, "memory:\n  k: 3.7\n",
		`config FILE: memory.k: want a whole number, got 3.7`},
	{"a text for a number in a file", []string{"runs", "list"}, nil, "episode:\n  max_turns: ten\n",
		`config FILE: episode.max_turns: want a whole number, got "ten"`},
	{"a text for a number in a variable", []string{"runs", "list"}, map[string]string{"CLINEVO_EVOLVER_MEMORY_BUDGET": "lots"}, "",
		`environment variable CLINEVO_EVOLVER_MEMORY_BUDGET: evolver.memory_budget: want a whole number, got "lots"`},
	{"a mistyped data dir", []string{"--data-dir", "DATA_DIR/typo", "runs", "list"}, nil, "",
		`engine: neither results.db nor memory.db is in DATA_DIR/typo: nothing has run with this data_dir (set --data-dir or data_dir to where the worker writes)`},
	{"an unknown log level", []string{"--log-level", "loud", "runs", "list"}, nil, "",
		`config: log.level (or --log-level) "loud", want one of debug, info, warn, error`},
	// Issue 37: numbers, terminate, diff, infinite and huge settings, the viewer's address.
	{"a negative limit", []string{"stream", "start", "--run", "r", "--limit", "-5"}, nil, "",
		`stream start: --limit must be at least 0 and at most 1000000 (0: every case), got -5`},
	{"a fractional limit", []string{"stream", "start", "--run", "r", "--limit", "3.7"}, nil, "",
		`invalid argument "3.7" for "--limit" flag: must be an integer`},
	{"terminate without a reason", []string{"stream", "terminate", "r1"}, nil, "",
		`stream terminate: --reason is required: say why the run is ended (status and the viewer show it)`},
	{"a backward diff", []string{"memory", "diff", "--from", "5", "--to", "3"}, nil, "",
		`memory diff: --from 5 --to 3: need 0 <= from < to, got from 5 and to 3`},
	{"an infinite weight", []string{"runs", "list"}, nil, "scoring:\n  lambda: .inf\n",
		`config FILE: scoring.lambda: want a finite number, got +Inf`},
	{"a huge memory.dim", []string{"runs", "list"}, nil, "memory:\n  dim: 1000000000\n",
		`config: memory.dim must be at least 16 and at most 65536, got 1000000000`},
	{"garbage YAML", []string{"runs", "list"}, nil, "episode: [unclosed\n",
		`config FILE: While parsing config: yaml: line 1: did not find expected ',' or ']'`},
	{"a public viewer without a token", []string{"view", "--listen", "0.0.0.0:7280"}, nil, "",
		`view: listen address "0.0.0.0:7280" is not loopback: serving other machines needs --token (every request must then carry it)`},
	{"a public viewer with a weak token", []string{"view", "--listen", "0.0.0.0:7280", "--token", "t"}, nil, "",
		`view: the token (--token or CLINEVO_VIEW_TOKEN) is too weak to guard "0.0.0.0:7280", which other machines can reach: a token takes at least 16 characters and no spaces (e.g. openssl rand -hex 16)`},
}

// TestBadInputIsRefused runs every bad input of the table "Bad input and
// what clinevo says" (docs/operations.md): each is refused with exactly its
// message, before anything is written, and the table shows that message.
func TestBadInputIsRefused(t *testing.T) {
	// The table is in the README or, once it moves, in a page of docs/.
	pages, err := filepath.Glob("../../docs/*.md")
	require.NoError(t, err)
	var table string
	ok := false
	for _, page := range append([]string{"../../README.md"}, pages...) {
		b, err := os.ReadFile(page)
		require.NoError(t, err)
		if _, table, ok = strings.Cut(string(b), "## Bad input and what clinevo says"); ok {
			break
		}
	}
	require.True(t, ok, "the README or a page of docs/ has the section")
	table, _, _ = strings.Cut(table, "\n## ")
	for _, tc := range badInputs {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"--data-dir", dir}
			file := filepath.Join(dir, "clinevo.yaml")
			if tc.file != "" {
				require.NoError(t, os.WriteFile(file, []byte(tc.file), 0o644))
				args = append(args, "--config", file)
			}
			for _, a := range tc.args {
				args = append(args, strings.ReplaceAll(a, "DATA_DIR", dir))
			}
			before := listDir(t, dir)
			_, err := run(t, tc.env, args...)
			want := strings.NewReplacer("DATA_DIR", dir, "FILE", file).Replace(tc.want)
			require.EqualError(t, err, want)
			require.Equal(t, exitBadInput, exitCode(err), "bad input exits 2")
			require.Equal(t, before, listDir(t, dir), "nothing written")
			require.Contains(t, table, "| "+tc.want+" |", "the table shows the message")
		})
	}
}

func listDir(t *testing.T, dir string) []string {
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		out = append(out, p)
		return err
	}))
	return out
}

// TestReadersReadWhatTheyMayNotWrite: `runs list` opens results.db
// read-only: it lists the runs of a file and a directory this process may
// not write, and leaves the file byte for byte as it was (as root, which may
// write them anyway, that is the check; SQLite's shared-memory files beside
// it, which a reader of a WAL file may create where it can, hold no data).
func TestReadersReadWhatTheyMayNotWrite(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(dir, "results.db"))
	require.NoError(t, err)
	require.NoError(t, st.PutRun(ctx, results.Run{Run: "ro-run", Kind: "stream", WorkflowID: "ro-run/stream", Spec: []byte(`{}`), Created: "2026-12-01T00:00:00Z"}))
	require.NoError(t, st.Close())
	files := func() map[string]string {
		out := map[string]string{}
		for _, p := range listDir(t, dir) {
			if strings.HasSuffix(p, "-wal") || strings.HasSuffix(p, "-shm") {
				continue
			}
			if b, err := os.ReadFile(p); err == nil {
				out[p] = string(b)
			}
		}
		return out
	}
	before := files()
	require.NoError(t, os.Chmod(filepath.Join(dir, "results.db"), 0o444))
	require.NoError(t, os.Chmod(dir, 0o555))
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	out, err := run(t, nil, "--data-dir", dir, "runs", "list")
	require.NoError(t, err)
	require.Contains(t, out, "ro-run")
	require.NoError(t, os.Chmod(dir, 0o755))
	require.NoError(t, os.Chmod(filepath.Join(dir, "results.db"), 0o644))
	require.Equal(t, before, files(), "the reader wrote nothing")
}

// TestLogLevel: the SDK's logger (which carries a worker's workflow and
// activity lines) writes at log.level (config.TestLogger has the levels),
// which --log-level sets over the file.
func TestLogLevel(t *testing.T) {
	var out strings.Builder
	a := &app{cfg: config.Config{Log: config.LogConfig{Level: "warn"}}}
	a.logger(&out).Info("stream started")
	a.logger(&out).Warn("slow")
	require.NotContains(t, out.String(), "stream started", "at warn the info line is not written")
	require.Contains(t, out.String(), "level=WARN msg=slow")
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yaml")
	require.NoError(t, os.WriteFile(file, []byte("log:\n  level: warn\n"), 0o644))
	_, err := run(t, nil, "--config", file, "--log-level", "chatty", "version")
	require.EqualError(t, err, `config: log.level (or --log-level) "chatty", want one of debug, info, warn, error`, "the flag wins over the file")
}
