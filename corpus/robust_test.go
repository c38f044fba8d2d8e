package corpus_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/all"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/corpus/corpustest"
	"github.com/clinevo/clinevo/corpus/synth"
)

// caseLine is a valid native case as a JSON line, changed by mod.
func caseLine(t *testing.T, mod func(*clinic.Case)) string {
	t.Helper()
	c := synth.Generate(7)["heldout"][0]
	mod(&c)
	b, err := json.Marshal(c)
	require.NoError(t, err)
	return string(b)
}

const medEvoCase = `{"case_id":%q,"patient_view":{"chief_complaint":"Chest pain on exertion","history_facts":["The pain started two months ago."]},` +
	`"manager_view":{"ground_truth":{"diagnosis":{"display_name":"Stable angina"}}}}`

const sdCase = `{"id":%q,"abstract":"A 29-year-old woman with a sore throat.","full_case":"The sore throat began seven weeks ago.","final_diagnosis":"Synovial sarcoma"}`

// TestNonASCIICaseIDsAreRefused (issue 37, item 1): a case ID that cannot be
// part of a workflow ID (Temporal sends it as ASCII in a gRPC header) is
// refused by corpus validate (corpus.Load), by every importer and so by
// stream start, naming the line, the field and what a case ID takes.
func TestNonASCIICaseIDsAreRefused(t *testing.T) {
	const takes = "a case ID takes 1 to 128 ASCII letters, digits, '.', '_', '-' and ':'"
	for _, tc := range []struct{ id, want string }{
		{"病例-0002", `case ID "病例-0002" holds '病' at byte 1: ` + takes},
		{"case 2", `case ID "case 2" holds ' ' at byte 5: ` + takes},
		{"a/b", `case ID "a/b" holds '/' at byte 2: ` + takes},
		{"tab\there", `case ID "tab\there" holds '\t' at byte 4: ` + takes},
		{strings.Repeat("x", 129), "has 129 bytes: " + takes},
	} {
		t.Run(tc.id, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "cases.jsonl")
			good := caseLine(t, func(c *clinic.Case) {})
			bad := caseLine(t, func(c *clinic.Case) { c.ID = tc.id })
			require.NoError(t, os.WriteFile(f, []byte(good+"\n"+bad+"\n"), 0o644))
			_, err := fullLibrary(t).Load(f)
			require.ErrorContains(t, err, f+":2: case ")
			require.ErrorContains(t, err, "field id: case ID ")
			require.ErrorContains(t, err, tc.want)

			for format, rec := range map[string]string{"medevoeval": medEvoCase, "sdbench": sdCase} {
				b, err := json.Marshal(tc.id)
				require.NoError(t, err)
				in := strings.Replace(rec, "%q", string(b), 1)
				_, _, err = fullLibrary(t).Import(format, strings.NewReader(in), "in.json", corpus.Options{})
				require.ErrorContains(t, err, tc.want, format)
			}
		})
	}
	_, err := fullLibrary(t).Load(writeLines(t, caseLine(t, func(c *clinic.Case) { c.ID = "mimic-iv:10023.a_b-C" })))
	require.NoError(t, err, "every character the rule names is taken")
}

// TestCaseTextHasLimits (issue 37, item 2): a text longer than 64 KiB, a
// list longer than 10,000 items and a line longer than 512 KiB are refused
// by validation and every importer, naming the line and the field: a 600 KB
// opening complaint used to reach a stream and stop it for good.
func TestCaseTextHasLimits(t *testing.T) {
	big := strings.Repeat("word ", 20_000) // 100,000 bytes
	for _, tc := range []struct {
		name string
		mod  func(*clinic.Case)
		want string
	}{
		{"a long opening complaint", func(c *clinic.Case) { c.Patient.OpeningComplaint = big },
			"field patient_view.opening_complaint: 100000 bytes of text; a text of a case takes at most 65536 (64 KiB)"},
		{"a long test result", func(c *clinic.Case) { c.Exam.Tests[0].Result = big },
			"field exam_view.tests[0].result: 100000 bytes of text"},
		{"a long catalog", func(c *clinic.Case) { c.Exam.Catalog = make([]string, 10_001) },
			"field exam_view.catalog: 10001 items; a list of a case takes at most 10000"},
		{"a long condition", func(c *clinic.Case) { c.Condition = strings.Repeat("k", 513) },
			"field condition: condition and system keys take at most 512 bytes each (they are search attributes of every episode), got 513 and "},
		{"600 KB of complaint", func(c *clinic.Case) { c.Patient.OpeningComplaint = strings.Repeat("x", 600_000) },
			":1: the line is longer than 524288 bytes, the most a line may hold"},
		{"many long facts", func(c *clinic.Case) {
			for i := range 10 {
				c.Patient.Facts = append(c.Patient.Facts, clinic.Fact{ID: "big" + string(rune('a'+i)), Text: big[:60_000], Topics: []string{"onset"}})
			}
		}, ":1: the line is longer than 524288 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := fullLibrary(t).Load(writeLines(t, caseLine(t, tc.mod)))
			require.ErrorContains(t, err, tc.want)
		})
	}
	c := synth.Generate(7)["heldout"][0]
	c.Patient.OpeningComplaint = big
	require.ErrorContains(t, fullLibrary(t).WriteJSONL(filepath.Join(t.TempDir(), "out.jsonl"), []clinic.Case{c}),
		"field patient_view.opening_complaint: 100000 bytes of text", "an importer's cases are checked before they are written")
	in := strings.Replace(sdCase, "%q", `"sd-1"`, 1)
	in = strings.Replace(in, "A 29-year-old woman with a sore throat.", big, 1)
	_, _, err := fullLibrary(t).Import("sdbench", strings.NewReader(in), "in.json", corpus.Options{})
	require.ErrorContains(t, err, "in.json:1: field patient_view.opening_complaint: 99999 bytes of text", "the importer trims the text")
}

// TestCorpusFileShapesAreNamed (issue 37, item 10): a byte-order mark, a
// JSON array given as a native corpus, a line that is not an object and a
// byte that is not UTF-8 (json would have replaced it in silence) are each
// refused saying what is wrong and where, by the native reader and the
// importers alike.
func TestCorpusFileShapesAreNamed(t *testing.T) {
	good := caseLine(t, func(c *clinic.Case) {})
	latin1 := caseLine(t, func(c *clinic.Case) { c.Patient.OpeningComplaint = "fever @@ three days" })
	latin1 = strings.Replace(latin1, "@@", "\xe9", 1) // é in Latin-1
	at := strings.Index(latin1, "\xe9")
	for _, tc := range []struct{ name, file, want string }{
		{"a byte-order mark", "\xef\xbb\xbf" + good + "\n", "FILE:1: the file starts with a UTF-8 byte-order mark (EF BB BF): save it as UTF-8 without one"},
		{"a JSON array", "[\n" + good + "\n]\n", "FILE:1: a native corpus is JSON Lines, one case object a line, and this file starts with a JSON array"},
		{"a JSON array on one line", "[" + good + "]\n", "FILE:1: a native corpus is JSON Lines, one case object a line, and this file starts with a JSON array"},
		{"a number", good + "\n42\n", `FILE:2: a native corpus is JSON Lines, one case object a line; this line starts with "42"`},
		{"Latin-1 text", good + "\n" + latin1 + "\n", "FILE:2: byte " + itoa(at+1) + " of the line (0xE9, byte offset " + itoa(at) + ") is not UTF-8: the file must be UTF-8 text"},
		{"two objects on a line", good + " " + good + "\n", "FILE:1: more than one JSON value on the line"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "cases.jsonl")
			require.NoError(t, os.WriteFile(f, []byte(tc.file), 0o644))
			_, err := fullLibrary(t).Load(f)
			require.ErrorContains(t, err, strings.ReplaceAll(tc.want, "FILE", f))
		})
	}
	bom := "\xef\xbb\xbf" + strings.Replace(medEvoCase, "%q", `"m1"`, 1)
	for _, format := range []string{"medevoeval", "agentclinic", "sdbench"} {
		_, _, err := fullLibrary(t).Import(format, strings.NewReader(bom), "in.json", corpus.Options{})
		require.ErrorContains(t, err, "in.json:1: the file starts with a UTF-8 byte-order mark", format)
		_, _, err = fullLibrary(t).Import(format, strings.NewReader("{\"a\":\"\xff\"}\n"), "in.json", corpus.Options{})
		require.ErrorContains(t, err, "in.json:1: byte 7 of the line (0xFF, byte offset 6) is not UTF-8", format)
	}
}

// fullLibrary is the corpus library of every benchmark of the build, whose
// importers and case checks the tests run.
func fullLibrary(t testing.TB) corpus.Library {
	t.Helper()
	set, err := all.Set()
	require.NoError(t, err)
	return corpus.NewLibrary(set)
}

func writeLines(t *testing.T, ls ...string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "cases.jsonl")
	require.NoError(t, os.WriteFile(f, []byte(strings.Join(ls, "\n")+"\n"), 0o644))
	return f
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestImportRefusesItsOwnInput (issue 37, item 8): corpus import with --out
// naming its input, by its name, a symbolic link or a hard link, is refused
// and leaves the input as it was; it used to overwrite it and exit 0.
func TestImportRefusesItsOwnInput(t *testing.T) {
	dir := t.TempDir()
	orig, err := os.ReadFile(corpustest.AgentClinicPath(t))
	require.NoError(t, err)
	in := filepath.Join(dir, "agentclinic.jsonl")
	require.NoError(t, os.WriteFile(in, orig, 0o644))
	sym := filepath.Join(dir, "sym.jsonl")
	require.NoError(t, os.Symlink(in, sym))
	hard := filepath.Join(dir, "hard.jsonl")
	require.NoError(t, os.Link(in, hard))
	for _, out := range []string{in, sym, hard, filepath.Join(dir, ".", "agentclinic.jsonl")} {
		_, _, err := fullLibrary(t).ImportFile("agentclinic", in, out, corpus.Options{})
		require.EqualError(t, err, "corpus import: --out "+out+" is the input file "+in+
			" (the same file by inode): the import would overwrite what it reads; choose another output file")
		got, err := os.ReadFile(in)
		require.NoError(t, err)
		require.Equal(t, orig, got, "the input is unchanged")
	}
	out := filepath.Join(dir, "native.jsonl")
	cases, _, err := fullLibrary(t).ImportFile("agentclinic", in, out, corpus.Options{})
	require.NoError(t, err)
	c, err := fullLibrary(t).Load(out)
	require.NoError(t, err)
	require.Len(t, c.Cases, len(cases))
}
