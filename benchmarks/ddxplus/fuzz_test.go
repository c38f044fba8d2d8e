package ddxplus_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/benchmarks/ddxplus"
	"github.com/clinevo/clinevo/corpus"
)

// FuzzImport reads any text as a DDXPlus patients CSV, decoded through the
// shipped dictionaries: no panic, no hang, and every case it returns
// validates (issue 37, item 12). Seeds: rows of the shipped sample and
// broken ones.
func FuzzImport(f *testing.F) {
	sample, err := os.ReadFile(filepath.Join("data", ddxplus.SampleFile))
	if err != nil {
		f.Fatal(err)
	}
	head := strings.SplitN(string(sample), "\n", 4)
	f.Add(strings.Join(head[:3], "\n") + "\n")
	const header = "AGE,DIFFERENTIAL_DIAGNOSIS,SEX,PATHOLOGY,EVIDENCES,INITIAL_EVIDENCE\n"
	for _, row := range []string{goodRow, `5,"[['URTI', 0.6]",F,URTI,"['E_201']",E_201`, `-3,"[]",X,Nope,"[]",E_0`,
		`5,"[['URTI', 1e999]]",F,URTI,"['E_201', 'E_55_@_V_999']",E_201`, "\xff,\xfe", `"unclosed`} {
		f.Add(header + row + "\n")
	}
	f.Add("")
	dir := f.TempDir()
	for _, name := range []string{ddxplus.EvidencesFile, ddxplus.ConditionsFile} {
		b, err := os.ReadFile(filepath.Join("data", name))
		if err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			f.Fatal(err)
		}
	}
	lib := benchtest.Library(ddxplus.Benchmark{})
	path := filepath.Join(dir, "patients.csv") // the dictionaries are found beside it
	f.Fuzz(func(t *testing.T, in string) {
		cases, _, err := lib.Import(ddxplus.Name, strings.NewReader(in), path, corpus.Options{SkipInvalid: true})
		if err != nil {
			return
		}
		for i := range cases {
			if err := lib.Validate(&cases[i]); err != nil {
				t.Fatalf("imported case %d does not validate: %v", i, err)
			}
		}
	})
}
