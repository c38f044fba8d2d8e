package corpus_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/corpus/corpustest"
	"github.com/clinevo/clinevo/corpus/synth"
)

// brokenLines are seeds of what users give: a BOM, an array, Latin-1, a
// number, truncated JSON, deep nesting, a huge number, control bytes.
var brokenLines = []string{"\xef\xbb\xbf{}", "[{}]", "{\"id\":\"caf\xe9\"}", "42", `{"schema_version":`, strings.Repeat("[", 10000),
	`{"schema_version":1e999}`, "\x00\x01\x02", "", "\n\n\n", `{"id":"病例-0002"}`}

// FuzzReadJSONL reads any file as a native corpus: no panic, and every case
// it accepts validates and writes back.
func FuzzReadJSONL(f *testing.F) {
	for _, c := range synth.Generate(7)["heldout"][:3] {
		b, err := json.Marshal(c)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b) + "\n")
	}
	for _, s := range brokenLines {
		f.Add(s)
	}
	lib := fullLibrary(f)
	f.Fuzz(func(t *testing.T, in string) {
		cases, err := lib.ReadJSONL(strings.NewReader(in), "in.jsonl")
		if err != nil {
			return
		}
		for i := range cases {
			if err := lib.Validate(&cases[i]); err != nil {
				t.Fatalf("accepted case %d does not validate: %v", i, err)
			}
		}
		if err := lib.WriteJSONL(t.TempDir()+"/out.jsonl", cases); err != nil {
			t.Fatalf("accepted cases do not write: %v", err)
		}
	})
}

// FuzzImport reads any file in every import format: no panic, and every
// case an importer returns validates. Each real seed goes to its format by
// name (the list grows with the benchmarks); DDXPlus, which needs its
// dictionaries, and DiagnosisArena have targets of their own beside them.
func FuzzImport(f *testing.F) {
	lib := fullLibrary(f)
	formats := lib.Formats()
	formatOf := func(name string) uint8 {
		for i, fm := range formats {
			if fm.Name == name {
				return uint8(i)
			}
		}
		f.Fatalf("no import format %s", name)
		return 0
	}
	osce, nejm := firstLine(f, corpustest.AgentClinicPath(f)), firstLine(f, filepath.Join(filepath.Dir(corpustest.AgentClinicPath(f)), "agentclinic_nejm.jsonl"))
	f.Add(osce, formatOf("agentclinic"))
	f.Add(nejm, formatOf("agentclinic"))
	f.Add(`[{"case_id":"m1","patient_view":{"chief_complaint":"Chest pain","history_facts":["x"]},"manager_view":{"ground_truth":{"diagnosis":{"display_name":"Angina"}}}}]`,
		formatOf("medevoeval"))
	f.Add(`{"id":"sd-1","abstract":"A 29-year-old woman.","full_case":"It began a week ago.","final_diagnosis":"Sarcoma"}`, formatOf("sdbench"))
	for i, s := range brokenLines {
		f.Add(s, uint8(i))
	}
	f.Fuzz(func(t *testing.T, in string, which uint8) {
		format := formats[int(which)%len(formats)].Name
		cases, _, err := lib.Import(format, strings.NewReader(in), "in", corpus.Options{SkipInvalid: true})
		if err != nil {
			return
		}
		for i := range cases {
			if err := lib.Validate(&cases[i]); err != nil {
				t.Fatalf("%s: imported case %d does not validate: %v", format, i, err)
			}
		}
	})
}

// firstLine is a file's first line, a seed of a real record.
func firstLine(f *testing.F, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	first, _, _ := bytes.Cut(b, []byte("\n"))
	return string(first) + "\n"
}
