package logschema_test

import (
	"archive/zip"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/inspectlog"
	"github.com/clinevo/clinevo/internal/logschema"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/settings"
)

// entries are the entries of a one-sample .eval log as inspectlog writes it.
func entries(t *testing.T) map[string][]byte {
	t.Helper()
	l := inspectlog.Build(inspectlog.Input{Run: results.Run{Run: "r", Kind: "stream", Created: "2026-12-02T07:00:00Z"}, Settings: settings.Default(),
		Episodes: []inspectlog.Episode{{Record: results.Record{EpisodeID: "r/p1/s01/e0001-c", Run: "r", CaseID: "c"}}}})
	path, err := inspectlog.Write(t.TempDir(), l, inspectlog.FormatEval)
	require.NoError(t, err)
	z, err := zip.OpenReader(path)
	require.NoError(t, err)
	defer z.Close()
	out := map[string][]byte{}
	for _, f := range z.File {
		r, err := f.Open()
		require.NoError(t, err)
		var v json.RawMessage
		require.NoError(t, json.NewDecoder(r).Decode(&v))
		require.NoError(t, r.Close())
		out[f.Name] = v
	}
	return out
}

func writeZip(t *testing.T, files map[string][]byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "x.eval")
	f, err := os.Create(path)
	require.NoError(t, err)
	z := zip.NewWriter(f)
	for name, b := range files {
		w, err := z.Create(name)
		require.NoError(t, err)
		_, err = w.Write(b)
		require.NoError(t, err)
	}
	require.NoError(t, z.Close())
	require.NoError(t, f.Close())
	return path
}

// TestInspectEval: each entry of an .eval log is checked as what inspect
// writes there: a log as written passes; an entry inspect does not write, a
// header holding samples, a start with a field LogStart lacks, a summary
// without its ID and a log without samples each fail, naming what.
func TestInspectEval(t *testing.T) {
	n, err := logschema.InspectFile(writeZip(t, entries(t)))
	require.NoError(t, err)
	require.Equal(t, 1, n)
	edit := func(name string, f func(m map[string]any)) func(map[string][]byte) {
		return func(es map[string][]byte) {
			var m map[string]any
			require.NoError(t, json.Unmarshal(es[name], &m))
			f(m)
			b, err := json.Marshal(m)
			require.NoError(t, err)
			es[name] = b
		}
	}
	for _, tc := range []struct {
		name, want string
		change     func(map[string][]byte)
	}{
		{"an unknown entry", "an entry inspect does not write", func(es map[string][]byte) { es["extra.json"] = []byte(`{}`) }},
		{"a header with samples", "the header holds samples", edit("header.json", func(m map[string]any) { m["samples"] = []any{} })},
		{"a start with an extra field", "want exactly version", edit("_journal/start.json", func(m map[string]any) { m["status"] = "success" })},
		{"a summary without its ID", "EvalSampleSummary", func(es map[string][]byte) {
			var l []map[string]any
			require.NoError(t, json.Unmarshal(es["summaries.json"], &l))
			delete(l[0], "id")
			es["summaries.json"], _ = json.Marshal(l)
		}},
		{"no sample", "want a header and samples", func(es map[string][]byte) { delete(es, inspectlog.SampleEntry("c", 1)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			es := entries(t)
			tc.change(es)
			_, err := logschema.InspectFile(writeZip(t, es))
			require.ErrorContains(t, err, tc.want)
		})
	}
}
