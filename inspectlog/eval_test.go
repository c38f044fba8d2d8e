package inspectlog_test

import (
	"archive/zip"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/medevoeval"
	"github.com/clinevo/clinevo/inspectlog"
	"github.com/clinevo/clinevo/internal/logschema"
)

// TestEvalFormat: the .eval log of a run holds the entries inspect writes
// (the journalled start, a sample an entry named <id>_epoch_<n>, the
// summaries, the header), each valid against inspect's schema of what it
// is; read back, its samples are the JSON log's, in inspect's order (epoch,
// then ID), and its header the JSON log's without samples.
func TestEvalFormat(t *testing.T) {
	run, eps := playedRun(t, 3)
	again := eps[0]
	again.Record.EpisodeID, again.Record.Index = "r1/p2/s01/e0004-"+again.Record.CaseID, 4
	eps = append(eps, again)
	l := inspectlog.Build(inspectlog.Input{Run: run, Settings: modelDoctor(), Bench: medevoeval.Benchmark{}, Episodes: eps})
	dir := t.TempDir()
	evalPath, err := inspectlog.Write(dir, l, inspectlog.FormatEval)
	require.NoError(t, err)
	jsonPath, err := inspectlog.Write(dir, l, inspectlog.FormatJSON)
	require.NoError(t, err)
	require.Equal(t, strings.TrimSuffix(jsonPath, ".json")+".eval", evalPath, "the same name, inspect's extension of the format")

	n, err := logschema.InspectFile(evalPath)
	require.NoError(t, err)
	require.Equal(t, 4, n)

	z, err := zip.OpenReader(evalPath)
	require.NoError(t, err)
	defer z.Close()
	var names []string
	for _, f := range z.File {
		names = append(names, f.Name)
		require.Equal(t, zip.Deflate, f.Method, f.Name)
	}
	ids := []string{l.Samples[0].ID, l.Samples[1].ID, l.Samples[2].ID}
	require.Equal(t, []string{"_journal/start.json",
		"samples/" + ids[0] + "_epoch_1.json", "samples/" + ids[1] + "_epoch_1.json", "samples/" + ids[2] + "_epoch_1.json",
		"samples/" + ids[0] + "_epoch_2.json", "_journal/summaries/1.json", "summaries.json", "header.json"}, names)

	back, err := inspectlog.ReadEval(evalPath)
	require.NoError(t, err)
	raw, err := os.ReadFile(jsonPath)
	require.NoError(t, err)
	var fromJSON inspectlog.Log
	require.NoError(t, json.Unmarshal(raw, &fromJSON))
	want := slices.Clone(fromJSON.Samples)
	slices.SortStableFunc(want, func(a, b inspectlog.Sample) int {
		if a.Epoch != b.Epoch {
			return a.Epoch - b.Epoch
		}
		return strings.Compare(a.ID, b.ID)
	})
	require.Equal(t, want, back.Samples)
	fromJSON.Samples, back.Samples = nil, nil
	require.Equal(t, fromJSON, back)
}

// TestEvalSummaries: a summary counts the sample's messages and thins its
// texts as inspect does: an input of more than 5120 characters cut there
// and marked, a score explanation of more than 1024 characters cut at a
// word with "...", a metadata value whose JSON passes 1 KiB replaced.
func TestEvalSummaries(t *testing.T) {
	run, eps := playedRun(t, 1)
	l := inspectlog.Build(inspectlog.Input{Run: run, Settings: modelDoctor(), Bench: medevoeval.Benchmark{}, Episodes: eps})
	s := &l.Samples[0]
	s.Input = strings.Repeat("a", 5121)
	sc := s.Scores["s"]
	sc.Explanation = strings.Repeat("word ", 300) // 1499 characters
	s.Scores["s"] = sc
	s.Metadata["retrieved_cards"] = slices.Repeat([]string{"card-0123456789"}, 100)
	path, err := inspectlog.Write(t.TempDir(), l, inspectlog.FormatEval)
	require.NoError(t, err)
	_, err = logschema.InspectFile(path)
	require.NoError(t, err)

	z, err := zip.OpenReader(path)
	require.NoError(t, err)
	defer z.Close()
	f, err := z.Open("summaries.json")
	require.NoError(t, err)
	var sums []inspectlog.SampleSummary
	require.NoError(t, json.NewDecoder(f).Decode(&sums))
	require.Len(t, sums, 1)
	got := sums[0]
	require.Equal(t, strings.Repeat("a", 5120)+"...\n(content truncated)", got.Input)
	// 204 words of 4 letters and their 203 spaces make 1019 characters; a
	// 205th word and its space would pass 1024 with the 3 of "...".
	require.Equal(t, strings.TrimSpace(strings.Repeat("word ", 204))+"...", got.Scores["s"].Explanation)
	require.Equal(t, "Key removed from summary (> 1k)", got.Metadata["retrieved_cards"])
	require.Equal(t, s.Metadata["case_id"], got.Metadata["case_id"])
	require.Equal(t, len(s.Messages), got.MessageCount)
	require.True(t, got.Completed)
}

// TestEvalErrors: a format inspect does not have is refused before
// anything is written; a zip without a header is no finished log.
func TestEvalErrors(t *testing.T) {
	run, eps := playedRun(t, 1)
	l := inspectlog.Build(inspectlog.Input{Run: run, Settings: modelDoctor(), Bench: medevoeval.Benchmark{}, Episodes: eps})
	dir := t.TempDir()
	_, err := inspectlog.Write(dir, l, "yaml")
	require.ErrorContains(t, err, `--format "yaml": want eval (inspect's default, a zip) or json`)
	files, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, files)

	bad := filepath.Join(dir, "x.eval")
	f, err := os.Create(bad)
	require.NoError(t, err)
	zw := zip.NewWriter(f)
	w, err := zw.Create("samples/a_epoch_1.json")
	require.NoError(t, err)
	_, err = w.Write([]byte(`{"id":"a","epoch":1}`))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())
	_, err = inspectlog.ReadEval(bad)
	require.ErrorContains(t, err, "no header.json entry")
	_, err = logschema.InspectFile(bad)
	require.Error(t, err)
}
