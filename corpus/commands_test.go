package corpus_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/corpus/synth"
)

// TestWriteSplits: the synthetic splits, or a benchmark's own, are written
// as JSONL files of their names, each said with its count, in the splits'
// order; a benchmark without them, or a version a split is not built on, is
// an error of corpus gen.
func TestWriteSplits(t *testing.T) {
	lib := toyLibrary()
	dir := t.TempDir()
	var out strings.Builder
	require.NoError(t, lib.WriteSplits(&out, dir, "", synth.V2, 7))
	want := ""
	for _, split := range []struct {
		name string
		n    int
	}{{"stream", synth.StreamSize}, {"heldout", synth.HeldOutSize}, {"cross", synth.CrossSize}, {"update", synth.StreamSize}} {
		path := filepath.Join(dir, split.name+".jsonl")
		want += fmt.Sprintf("%s: %d cases\n", path, split.n)
		c, err := lib.Load(path)
		require.NoError(t, err)
		require.Len(t, c.Cases, split.n)
	}
	require.Equal(t, want, out.String())

	out.Reset()
	require.NoError(t, lib.WriteSplits(&out, dir, "toy", synth.V3, 7))
	require.Equal(t, filepath.Join(dir, "toy.jsonl")+": 4 cases\n"+filepath.Join(dir, "toy-test.jsonl")+": 4 cases\n", out.String(), "the benchmark's splits, by name")
	require.ErrorContains(t, lib.WriteSplits(io.Discard, dir, "toy", synth.V1, 7), "corpus gen: benchmark toy: split toy is built on generator version")
	require.ErrorContains(t, lib.WriteSplits(io.Discard, dir, "nosuch", synth.V2, 7), "corpus gen: ")
}

// TestWriteRedactions: each redaction of each case, then how many cases
// had one; nothing when none was redacted.
func TestWriteRedactions(t *testing.T) {
	cases := []clinic.Case{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	var out strings.Builder
	corpus.WriteRedactions(&out, cases)
	require.Empty(t, out.String())
	cases[0].Provenance.Redactions = []string{`opening: masked "gout"`, "exam: dropped a sentence"}
	cases[2].Provenance.Redactions = []string{"history: dropped a sentence"}
	corpus.WriteRedactions(&out, cases)
	require.Equal(t, `case a: redacted: opening: masked "gout"
case a: redacted: exam: dropped a sentence
case c: redacted: history: dropped a sentence
redacted cases: 2 (a text named the diagnosis)
`, out.String())
}

// importer is a benchmark with an import format that reads two companion
// files.
type importer struct{ benchtest.Fake }

func (importer) Formats() []corpus.Format {
	return []corpus.Format{{Name: "zeta", Doc: "Zeta CSV", Files: []corpus.FileOption{{Name: "codes", Doc: "the code list"}, {Name: "units", Doc: "the units"}}}}
}

// TestFormatHelp: a line a format, by name, each companion file under it.
func TestFormatHelp(t *testing.T) {
	set, err := bench.NewSet(importer{benchtest.Fake{N: "zeta"}})
	require.NoError(t, err)
	help := corpus.NewLibrary(set).FormatHelp()
	require.Regexp(t, `^  agentclinic     AgentClinic JSONL, one case a line`, help)
	require.True(t, strings.HasSuffix(help, `
  zeta            Zeta CSV
                    --file codes=PATH: the code list
                    --file units=PATH: the units
`), help)
}

// TestSummarise: a corpus's stats, and its overlap with another when there
// is one; the JSON has "overlap" (when there is one) before "stats", and
// the tables are the stats', then the overlap's.
func TestSummarise(t *testing.T) {
	held, stream := mustLoad(t, "builtin:heldout@7"), mustLoad(t, "builtin:stream@7")
	s := corpus.Summarise(held, nil)
	b, err := json.Marshal(s)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(b), `{"stats":{`), string(b))
	var tables strings.Builder
	require.NoError(t, s.Write(&tables))
	var want strings.Builder
	corpus.WriteStats(&want, held)
	require.Equal(t, want.String(), tables.String())

	s = corpus.Summarise(held, stream)
	b, err = json.Marshal(s)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(b), `{"overlap":{"cases":100,"shared_cases":0,`), string(b))
	tables.Reset()
	require.NoError(t, s.Write(&tables))
	require.True(t, strings.HasPrefix(tables.String(), want.String()))
	require.Contains(t, tables.String(), "openings of builtin:heldout@7 seen in builtin:stream@7: 0 shared normalised openings, 0 of 100 cases")
}

// TestCheck: a valid corpus says how many cases it has and the schema
// version; --strict also refuses a test whose availability depends on the
// condition (version 1's stream has 19); a corpus that does not load is the
// error.
func TestCheck(t *testing.T) {
	lib := corpus.Library{}
	v, err := lib.Check("builtin:stream@7", true)
	require.NoError(t, err)
	b, err := json.Marshal(v)
	require.NoError(t, err)
	require.Equal(t, fmt.Sprintf(`{"cases":500,"corpus":"builtin:stream@7","schema_version":%d,"valid":true}`, clinic.CaseSchemaVersion), string(b))
	var out strings.Builder
	require.NoError(t, v.Write(&out))
	require.Equal(t, fmt.Sprintf("builtin:stream@7: 500 cases, all valid (schema_version %d)\n", clinic.CaseSchemaVersion), out.String())

	_, err = lib.Check("builtin:v1:stream@7", false)
	require.NoError(t, err)
	_, err = lib.Check("builtin:v1:stream@7", true)
	require.Error(t, err)
	_, err = lib.Check(filepath.Join(t.TempDir(), "none.jsonl"), false)
	require.Error(t, err)
}

// TestImportTo: the lines an import skips go to stderr, with their count
// when skipping was asked; the count of cases imported to stdout; an input
// that fails is the error, and one that cannot be written a *WriteError.
func TestImportTo(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.jsonl"), filepath.Join(dir, "out.jsonl")
	require.NoError(t, os.WriteFile(in, []byte(strings.Join([]string{asymptomaticLine, noDiagnosisLine, symptomaticLine}, "\n")), 0o644))
	lib := corpus.Library{}
	var w, errw strings.Builder
	require.NoError(t, lib.ImportTo(&w, &errw, "agentclinic", in, out, corpus.Options{SkipInvalid: true}))
	require.Equal(t, out+": 2 cases imported from "+in+"\n", w.String())
	require.Equal(t, in+":2: field OSCE_Examination.Correct_Diagnosis: required\nskipped lines: 1\n", errw.String())

	w.Reset()
	errw.Reset()
	err := lib.ImportTo(&w, &errw, "agentclinic", in, out, corpus.Options{})
	require.ErrorContains(t, err, in+":2: field OSCE_Examination.Correct_Diagnosis: required")
	require.Empty(t, w.String())
	var write *corpus.WriteError
	require.False(t, errors.As(err, &write), "the input's fault")

	err = lib.ImportTo(&w, &errw, "agentclinic", in, filepath.Join(in, "out.jsonl"), corpus.Options{SkipInvalid: true}) // under a file: no directory
	require.True(t, errors.As(err, &write), "%v", err)
}
