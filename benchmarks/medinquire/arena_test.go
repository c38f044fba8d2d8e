package medinquire

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf16"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/corpus/synth"
)

// arenaSample is the release's first 100 records as JSON Lines, written as
// the Hugging Face datasets library writes them (TestArenaSample makes it).
const arenaSample = "testdata/diagnosisarena-100.jsonl"

// releaseRecords reads the embedded release's records.
func releaseRecords(t testing.TB) []ArenaRecord {
	t.Helper()
	recs, err := parquet.Read[ArenaRecord](bytes.NewReader(ArenaRelease), int64(len(ArenaRelease)))
	require.NoError(t, err)
	require.Len(t, recs, 915)
	return recs
}

// datasetsLine writes a record as the datasets library's Dataset.to_json
// does (JsonDatasetWriter: pandas DataFrame.to_json with orient "records"
// and lines true, force_ascii and forward-slash escaping left at pandas'
// defaults): the columns in order, no spaces, the struct column as an
// object, every character outside printable ASCII as \uXXXX (lowercase hex,
// surrogate pairs beyond the BMP), "/" as "\/", and a newline after the line.
func datasetsLine(r ArenaRecord) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"id":%d`, r.ID)
	for _, f := range []struct{ k, v string }{{"Case Information", r.CaseInformation}, {"Physical Examination", r.PhysicalExamination},
		{"Diagnostic Tests", r.DiagnosticTests}, {"Final Diagnosis", r.FinalDiagnosis}} {
		b.WriteString(`,"` + f.k + `":`)
		pandasString(&b, f.v)
	}
	b.WriteString(`,"Options":{`)
	for i, o := range []string{r.Options.A, r.Options.B, r.Options.C, r.Options.D} {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + string(rune('A'+i)) + `":`)
		pandasString(&b, o)
	}
	b.WriteString(`},"Right Option":`)
	pandasString(&b, r.RightOption)
	b.WriteString("}\n")
	return b.Bytes()
}

func pandasString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '/':
			b.WriteString(`\/`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			switch {
			case r < 0x20 || (r >= 0x80 && r <= 0xffff):
				fmt.Fprintf(b, `\u%04x`, r)
			case r > 0xffff:
				hi, lo := utf16.EncodeRune(r)
				fmt.Fprintf(b, `\u%04x\u%04x`, hi, lo)
			default:
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// TestArenaSample checks that the shipped JSON Lines sample is the
// release's first 100 records as the datasets library writes them, byte for
// byte; CLINEVO_UPDATE_TESTDATA=1 writes it.
func TestArenaSample(t *testing.T) {
	var want bytes.Buffer
	for _, r := range releaseRecords(t)[:100] {
		want.Write(datasetsLine(r))
	}
	if os.Getenv("CLINEVO_UPDATE_TESTDATA") == "1" {
		require.NoError(t, os.WriteFile(arenaSample, want.Bytes(), 0o644))
	}
	got, err := os.ReadFile(arenaSample)
	require.NoError(t, err)
	require.Equal(t, want.String(), string(got))
	// What sets the library's output apart from Go's encoder: ASCII only,
	// escaped slashes ("109\/L"), no HTML escapes, one record a line.
	for i, c := range got {
		require.Less(t, c, byte(0x80), "byte %d is not ASCII", i)
	}
	require.Contains(t, string(got), `109\/L`)
	require.Contains(t, string(got), `\u00d7`, "the multiplication sign of 4.2 × 3.8 cm")
	require.Equal(t, 100, bytes.Count(got, []byte("\n")))
}

// TestArenaParquetAndJSONLImportIdentically imports the first 100 records
// from the parquet file and from the JSON Lines sample: the native JSONL
// written from each is the same, byte for byte.
func TestArenaParquetAndJSONLImportIdentically(t *testing.T) {
	fromParquet, skipped, err := ImportArena(bytes.NewReader(ArenaRelease), ArenaFile, false)
	require.NoError(t, err)
	require.Empty(t, skipped)
	f, err := os.Open(arenaSample)
	require.NoError(t, err)
	defer f.Close()
	fromJSONL, _, err := ImportArena(f, arenaSample, false)
	require.NoError(t, err)
	require.Len(t, fromJSONL, 100)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "parquet.jsonl"), filepath.Join(dir, "jsonl.jsonl")
	require.NoError(t, benchtest.Library(Benchmark{}).WriteJSONL(a, fromParquet[:100]))
	require.NoError(t, benchtest.Library(Benchmark{}).WriteJSONL(b, fromJSONL))
	pa, err := os.ReadFile(a)
	require.NoError(t, err)
	pb, err := os.ReadFile(b)
	require.NoError(t, err)
	require.Equal(t, string(pa), string(pb))
}

// TestArenaEveryCaseValidates imports all 915 records, writes them and
// reads them back through corpus validation, in published order.
func TestArenaEveryCaseValidates(t *testing.T) {
	cases, err := Benchmark{}.Builtin(ArenaSplit, synth.Default, 7)
	require.NoError(t, err)
	require.Len(t, cases, 915)
	path := filepath.Join(t.TempDir(), "arena.jsonl")
	require.NoError(t, benchtest.Library(Benchmark{}).WriteJSONL(path, cases))
	cp, err := benchtest.Library(Benchmark{}).Load(path)
	require.NoError(t, err)
	require.Len(t, cp.Cases, 915)
	for i, c := range cp.Cases {
		require.NoError(t, corpus.Validate(&c))
		require.Equal(t, arenaCaseID(int64(i+1)), c.ID, "published order")
		require.Len(t, c.Manager.Distractors, 3, c.ID)
		require.NotContains(t, c.Manager.Distractors, c.Manager.Diagnosis.Name, c.ID)
		require.Equal(t, ArenaLicense, c.Provenance.License)
		for _, tv := range c.Exam.Tests {
			// "Test: Punch biopsy ...", "Test Result: ...", "Others: 3%" are
			// entries of a test, not tests (corpus.GroupTests).
			require.NotContains(t, []string{"test", "tests", "others", "test name"}, tv.Name, c.ID)
		}
	}
}

// arenaRecord is the release's first record (id 1), whose mapping the tests
// below check by hand.
func arenaRecord(t *testing.T) ArenaRecord {
	t.Helper()
	return releaseRecords(t)[0]
}

func TestArenaMapping(t *testing.T) {
	c, err := ArenaCase(arenaRecord(t))
	require.NoError(t, err)
	require.Equal(t, "diagnosisarena-0001", c.ID)
	require.Equal(t, "A woman in her early 70s presented with a solitary, asymptomatic lump on her scalp.", c.Patient.OpeningComplaint)
	require.Equal(t, clinic.Demographics{Sex: "female", Text: "A woman in her early 70s"}, c.Patient.Demographics)
	// "Cutaneous meningeal heterotopia (CMH)": CMH abbreviates the name, so
	// it is an acceptable name and the name is written without it.
	require.Equal(t, clinic.Diagnosis{Name: "Cutaneous meningeal heterotopia", Acceptable: []string{"CMH"}}, c.Manager.Diagnosis)
	require.Equal(t, []string{"Primary cutaneous meningioma", "Meningioma en plaque", "Meningioma (cutaneous scalp meningioma)"}, c.Manager.Distractors)
	byText := map[string][]string{}
	for _, f := range c.Patient.Facts {
		byText[f.Text] = f.Topics
	}
	require.Len(t, c.Patient.Facts, 4, "the four sentences after the opening")
	require.Equal(t, []string{clinic.TopicFamily}, byText["Family history notable for father who died of metastatic cutaneous melanoma at 83 years old."])
	require.Equal(t, []string{clinic.TopicPastHistory}, byText["Medical history included a benign breast nodule resection in teenage years."])
	require.Contains(t, byText["No local inflammation, purulent discharge, or systemic symptoms were reported."], clinic.TopicSystems)
	systems := map[string]bool{}
	for _, f := range c.Exam.Findings {
		systems[f.System] = true
	}
	require.True(t, systems["skin"], "the scalp plaque is a skin finding")
	tests := map[string]clinic.TestValue{}
	for _, tv := range c.Exam.Tests {
		tests[tv.Name] = tv
	}
	require.Contains(t, tests, "mri brain", "Brain MRI takes the catalog's name")
	require.Contains(t, tests["mri brain"].Result, "nonenhancing tumor with sharp margins")
	require.Contains(t, tests, "imaging studies")
	require.Contains(t, tests, "pathology")
	require.Contains(t, tests["pathology"].Aliases, "biopsy")
	require.Contains(t, tests["pathology"].Result, "vimentin and epithelial membrane antigen")
	require.Empty(t, c.Provenance.Redactions)
}

// TestArenaLeakGuard plants the diagnosis in the opening, in history
// sentences (by name and by its abbreviation) and in an examination
// sentence: the opening is masked, the sentences dropped, each listed; the
// test results keep it.
func TestArenaLeakGuard(t *testing.T) {
	r := arenaRecord(t)
	r.CaseInformation = "A woman in her early 70s presented with a cutaneous meningeal heterotopia of the scalp. " +
		"She was told years ago that it was a Cutaneous Meningeal Heterotopia. It has grown since a fall. Her CMH never hurt."
	r.PhysicalExamination = "A firm nodule on the scalp vertex. The appearance is typical of cutaneous meningeal heterotopia."
	r.DiagnosticTests = "- Histopathology: findings of cutaneous meningeal heterotopia."
	c, err := ArenaCase(r)
	require.NoError(t, err)
	require.Equal(t, "A woman in her early 70s presented with a [redacted] of the scalp.", c.Patient.OpeningComplaint)
	require.Len(t, c.Patient.Facts, 1)
	require.Equal(t, "It has grown since a fall.", c.Patient.Facts[0].Text)
	require.Equal(t, []clinic.Finding{{System: "skin", Text: "A firm nodule on the scalp vertex.", Abnormal: true}}, c.Exam.Findings)
	require.Equal(t, []string{
		`patient_view.opening_complaint: masked "Cutaneous meningeal heterotopia"`,
		`patient_view.facts: dropped a sentence naming "Cutaneous meningeal heterotopia"`,
		`patient_view.facts: dropped a sentence naming "CMH"`,
		`exam_view.findings: dropped a sentence naming "Cutaneous meningeal heterotopia"`,
	}, c.Provenance.Redactions)
	require.Contains(t, c.Exam.Tests[0].Result, "cutaneous meningeal heterotopia", "a biopsy report may name it")
}
