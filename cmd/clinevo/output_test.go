package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/memory/local"
	"github.com/clinevo/clinevo/recorded"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/results/sqlite"
	"github.com/clinevo/clinevo/runstatus"
	"github.com/clinevo/clinevo/settings"
)

var snakeKey = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// jsonKeyProblems lists every struct field, at any depth of t, whose JSON key
// is not snake_case (an untagged field prints its Go name, capitalised).
func jsonKeyProblems(t reflect.Type, path string, seen map[reflect.Type]bool) []string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return nil
	}
	seen[t] = true
	if t.Implements(reflect.TypeFor[interface{ MarshalJSON() ([]byte, error) }]()) {
		return nil
	}
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		if f.Anonymous && name == "" {
			out = append(out, jsonKeyProblems(f.Type, path, seen)...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		if !snakeKey.MatchString(name) {
			out = append(out, path+"."+name)
		}
		out = append(out, jsonKeyProblems(f.Type, path+"."+name, seen)...)
	}
	return out
}

// TestPrintedJSONIsSnakeCase checks every type a command prints as JSON.
func TestPrintedJSONIsSnakeCase(t *testing.T) {
	for _, v := range []any{clinic.Trace{}, clinic.Card{}, results.Record{}, memory.Stats{}, contract.Progress{}, contract.StreamResult{}, contract.ExperimentSpec{}, settings.Settings{}, analysis.Report{},
		recorded.RunSummary{}, runstatus.Stream{}, runstatus.Experiment{}, episodeRow{}, analysis.RunComparison{}} {
		typ := reflect.TypeOf(v)
		t.Run(typ.String(), func(t *testing.T) {
			require.Empty(t, jsonKeyProblems(typ, typ.Name(), map[reflect.Type]bool{}))
		})
	}
}

// requireSnakeKeys walks decoded JSON and fails on any object key that is not
// snake_case (map keys that are data, such as kinds or stage numbers, are
// lower case too).
func requireSnakeKeys(t *testing.T, v any, path string) {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			require.Regexp(t, `^[a-z0-9]+(_[a-z0-9]+)*$`, k, "key at %s", path)
			requireSnakeKeys(t, e, path+"."+k)
		}
	case []any:
		for _, e := range x {
			requireSnakeKeys(t, e, path+"[]")
		}
	}
}

func decodeJSON(t *testing.T, out string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &m), out)
	return m
}

func keysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestMemoryCommandsOutput checks the shape of the memory commands' output:
// tables by default, snake_case JSON with --json.
func TestMemoryCommandsOutput(t *testing.T) {
	dir := t.TempDir()
	learnBank(t, dir, 30)
	ctx := context.Background()
	st, err := local.Open(ctx, filepath.Join(dir, "memory.db"), memory.HashEmbedder{})
	require.NoError(t, err)
	want, err := st.Stats(ctx, memory.Filter{})
	require.NoError(t, err)
	cards, err := st.List(ctx, memory.Filter{IncludeEvicted: true})
	require.NoError(t, err)
	require.NoError(t, st.Close())
	require.NotEmpty(t, want.MostRetrieved)
	cmd := func(args ...string) string {
		t.Helper()
		r := newRoot()
		var out bytes.Buffer
		r.SetOut(&out)
		r.SetErr(&out)
		r.SetArgs(append([]string{"--data-dir", dir}, args...))
		require.NoError(t, r.Execute())
		return out.String()
	}

	out := cmd("memory", "stats")
	require.Regexp(t, fmt.Sprintf(`(?m)^CARDS +LIVE +EVICTED +EMBEDDER +DIM\n%d +%d +%d +%s +%d$`, want.Total, want.Live, want.Evicted, regexp.QuoteMeta(want.Model), want.Dim), out)
	for kind, n := range want.ByKind {
		require.Regexp(t, fmt.Sprintf(`(?m)^%s +%d$`, kind, n), out)
	}
	for _, h := range []string{"KIND", "BANK", "STAGE", "MOST RETRIEVED"} {
		require.Regexp(t, `(?m)^`+h+` `, out)
	}
	require.Contains(t, out, want.MostRetrieved[0].ID)
	require.NotContains(t, out, "{", "a table, not JSON")

	js := decodeJSON(t, cmd("memory", "stats", "--json"))
	require.Equal(t, []string{"by_bank", "by_kind", "by_stage", "dim", "evicted", "live", "model", "most_retrieved", "total"}, keysOf(js))
	require.EqualValues(t, want.Live, js["live"])
	requireSnakeKeys(t, js, "stats")

	id := cards[0].ID
	out = cmd("memory", "show", id)
	require.Regexp(t, `(?m)^card +`+regexp.QuoteMeta(id)+`$`, out)
	require.Regexp(t, `(?m)^written +run bank, pass 1, stage 1, episode 1; `, out)
	js = decodeJSON(t, cmd("memory", "show", id, "--json"))
	require.Equal(t, []string{"card"}, keysOf(js), "no recorded episode in this data directory")
	requireSnakeKeys(t, js, "show")
	require.Equal(t, id, js["card"].(map[string]any)["id"])

	js = decodeJSON(t, cmd("memory", "diff", "--from", "0", "--to", "30", "--json"))
	require.Equal(t, []string{"evicted", "from", "to", "written"}, keysOf(js))
	requireSnakeKeys(t, js, "diff")
	require.Len(t, js["written"], want.Live, "every live card was written between the empty bank and the last episode")
}

// TestRunsListShowsExtraFields checks that runs list shows the extra fields of
// model replies per run and per role.
func TestRunsListShowsExtraFields(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(dir, "results.db"))
	require.NoError(t, err)
	require.NoError(t, st.PutRun(ctx, results.Run{Run: "r1", Kind: "stream", WorkflowID: "r1/stream", Spec: json.RawMessage(`{}`), Created: "2026-01-01T00:00:00Z"}))
	require.NoError(t, st.AddUsage(ctx, "r1/p1/s01/e0001-a", results.Usage{Calls: 2, PromptTokens: 10, CompletionTokens: 4, ExtraFields: 3, CachedTokens: 6}, "doctor"))
	require.NoError(t, st.AddUsage(ctx, "r1/p1/s01/e0002-b", results.Usage{Calls: 1, ExtraFields: 2}, "judge"))
	require.NoError(t, st.Close())
	r := newRoot()
	var out bytes.Buffer
	r.SetOut(&out)
	r.SetArgs([]string{"--data-dir", dir, "runs", "list"})
	require.NoError(t, r.Execute())
	require.Regexp(t, `(?m)^RUN +KIND +EPISODES +S +S BY STAGE +MODEL CALLS +TOKENS IN +CACHED IN +TOKENS OUT +CACHE HITS +EXTRA FIELDS +MODEL COST USD +WORKFLOW *$`, out.String())
	require.Regexp(t, `(?m)^r1 +stream +0 +- +- +3 +10 +6 +4 +0 +5 +0\.0000 +r1/stream *$`, out.String())
	require.Regexp(t, `(?m)^  doctor +2 +10 +6 +4 +0 +3 +0\.0000 *$`, out.String())
	require.Regexp(t, `(?m)^  judge +1 +0 +0 +0 +0 +2 +0\.0000 *$`, out.String())
	r = newRoot()
	out.Reset()
	r.SetOut(&out)
	r.SetArgs([]string{"--data-dir", dir, "runs", "list", "--json"})
	require.NoError(t, r.Execute())
	var rows []map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &rows))
	require.Len(t, rows, 1)
	require.Equal(t, "r1", rows[0]["run"])
	require.Equal(t, float64(5), rows[0]["usage"].(map[string]any)["extra_fields"])
	require.Equal(t, float64(6), rows[0]["usage"].(map[string]any)["cached_tokens"])
}
