package ddxplus

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/internal/jsonl"
)

// The companion files of the import and their names in a release.
const (
	EvidencesFile  = "release_evidences.json"
	ConditionsFile = "release_conditions.json"
)

// columns are the release's patient columns, in any order.
var columns = []string{"AGE", "DIFFERENTIAL_DIAGNOSIS", "SEX", "PATHOLOGY", "EVIDENCES", "INITIAL_EVIDENCE"}

var _ corpus.Importer = Benchmark{}

// Formats is the release's patients CSV with its two dictionaries.
func (Benchmark) Formats() []corpus.Format {
	return []corpus.Format{{Name: Name, Doc: "a DDXPlus release's patients CSV (figshare, English), decoded through its two dictionaries",
		Files: []corpus.FileOption{
			{Name: "evidences", Doc: "the evidence dictionary (default: " + EvidencesFile + " beside the CSV)"},
			{Name: "conditions", Doc: "the pathology dictionary (default: " + ConditionsFile + " beside the CSV)"}},
		Read: Import}}
}

// Import reads a release's patients CSV (a file called name) and the two
// dictionaries its options name, or those beside it. Each row becomes a case
// with every evidence decoded to English; an invalid row is an error naming
// the file, the row (and its line) and the field, or, with SkipInvalid, is
// listed and left out.
func Import(r io.Reader, name string, opt corpus.Options) ([]clinic.Case, []corpus.Skipped, error) {
	d, err := openDictionary(name, opt.Files)
	if err != nil {
		return nil, nil, err
	}
	return d.ReadPatients(r, name, opt.SkipInvalid)
}

// openDictionary opens the dictionaries named in files, or those beside the
// patients file.
func openDictionary(name string, files map[string]string) (*Dictionary, error) {
	path := func(key, base string) string {
		if p := files[key]; p != "" {
			return p
		}
		return filepath.Join(filepath.Dir(name), base)
	}
	evPath, condPath := path("evidences", EvidencesFile), path("conditions", ConditionsFile)
	ev, err := os.Open(evPath)
	if err != nil {
		return nil, fmt.Errorf("corpus import %s: evidence dictionary (--file evidences=PATH): %w", Name, err)
	}
	defer ev.Close()
	cond, err := os.Open(condPath)
	if err != nil {
		return nil, fmt.Errorf("corpus import %s: pathology dictionary (--file conditions=PATH): %w", Name, err)
	}
	defer cond.Close()
	return ReadDictionary(ev, evPath, cond, condPath)
}

// ReadPatients reads a patients CSV (a file called name) as cases with IDs
// "ddxplus-<file>-<row>", rows numbered from 1 after the header.
func (d *Dictionary) ReadPatients(r io.Reader, name string, skipInvalid bool) ([]clinic.Case, []corpus.Skipped, error) {
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: header: %w", name, err)
	}
	at := map[string]int{}
	for i, h := range header {
		at[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = i
	}
	for _, c := range columns {
		if _, ok := at[c]; !ok {
			return nil, nil, fmt.Errorf("%s: header: no column %s (want %s)", name, c, strings.Join(columns, ", "))
		}
	}
	stem := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	var cases []clinic.Case
	var skipped []corpus.Skipped
	for row := 1; ; row++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, err := rowLine(cr, rec, err)
		if line == 0 {
			return nil, nil, fmt.Errorf("%s: row %d: %w", name, row, err) // not a row's fault: no row after it can be read
		}
		var c clinic.Case
		if err == nil {
			c, err = d.rowCase(rec, at, fmt.Sprintf("%s-%s-%05d", Name, stem, row), fmt.Sprintf("%s row %d", filepath.Base(name), row))
		}
		if err != nil {
			if !skipInvalid {
				return nil, nil, fmt.Errorf("%s: row %d (line %d): %w", name, row, line, err)
			}
			skipped = append(skipped, corpus.Skipped{File: name, Line: line, Reason: fmt.Sprintf("row %d: %v", row, err)})
			continue
		}
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		return nil, skipped, fmt.Errorf("%s: no valid patients (%d rows skipped)", name, len(skipped))
	}
	return cases, skipped, nil
}

// rowLine is the line a row read with err starts on, and err; 0 for a
// failure to read that is no row's (a read error of the file). A row that
// does not parse has no field positions to ask for (csv.Reader.FieldPos
// panics then): its line is the parse error's.
func rowLine(cr *csv.Reader, rec []string, err error) (int, error) {
	var perr *csv.ParseError
	switch {
	case errors.As(err, &perr):
		return perr.StartLine, err
	case err != nil:
		return 0, err
	case len(rec) == 0:
		return 0, errors.New("a row without fields")
	}
	line, _ := cr.FieldPos(0)
	return line, nil
}

// rowCase converts one row; the error names the field.
func (d *Dictionary) rowCase(rec []string, at map[string]int, id, sourceID string) (clinic.Case, error) {
	field := func(c string) string { return strings.TrimSpace(rec[at[c]]) }
	var p Patient
	var err error
	fail := func(f string, err error) (clinic.Case, error) {
		return clinic.Case{}, fmt.Errorf("field %s: %w", f, err)
	}
	for _, c := range columns {
		// The release is UTF-8; a file re-saved in another encoding
		// would otherwise surface as an unknown pathology or evidence.
		if off, b, ok := jsonl.CheckUTF8([]byte(rec[at[c]])); !ok {
			return fail(c, fmt.Errorf("byte 0x%02X at character %d is not UTF-8 (the release is UTF-8: re-save the file as UTF-8)", b, off+1))
		}
	}
	if p.Age, err = strconv.Atoi(field("AGE")); err != nil || p.Age < 0 {
		return fail("AGE", fmt.Errorf("want a whole number of years, got %q", field("AGE")))
	}
	if p.Sex = strings.ToUpper(field("SEX")); p.Sex != "M" && p.Sex != "F" {
		return fail("SEX", fmt.Errorf("want M or F, got %q", field("SEX")))
	}
	if p.Pathology = field("PATHOLOGY"); !d.known(p.Pathology) {
		return fail("PATHOLOGY", fmt.Errorf("unknown pathology %q (not in %s)", p.Pathology, ConditionsFile))
	}
	codes, err := stringList(field("EVIDENCES"))
	if err == nil {
		p.Findings, err = d.Decode(codes)
	}
	if err != nil {
		return fail("EVIDENCES", err)
	}
	p.Initial, _, _ = strings.Cut(field("INITIAL_EVIDENCE"), valueSep) // the evidence, whatever its value
	if !slices.ContainsFunc(p.Findings, func(f Finding) bool { return f.Code == p.Initial }) {
		return fail("INITIAL_EVIDENCE", fmt.Errorf("%q is not one of the patient's evidences", p.Initial))
	}
	if p.Differential, err = d.differential(field("DIFFERENTIAL_DIAGNOSIS")); err != nil {
		return fail("DIFFERENTIAL_DIAGNOSIS", err)
	}
	c, err := d.NewCase(id, sourceID, p)
	if err == nil {
		err = corpus.Validate(&c)
	}
	if err == nil {
		err = Benchmark{}.ValidateCase(&c)
	}
	return c, err
}

func (d *Dictionary) known(pathology string) bool {
	_, ok := d.conditions[pathology]
	return ok
}

// stringList parses a Python list of quoted texts.
func stringList(s string) ([]string, error) {
	vals, err := parsePyList(s)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(vals))
	for i, v := range vals {
		if !v.isStr {
			return nil, fmt.Errorf("item %d: want a quoted evidence code", i+1)
		}
		out[i] = v.str
	}
	return out, nil
}

// differential parses a list of [pathology, probability] pairs.
func (d *Dictionary) differential(s string) ([]Weighted, error) {
	vals, err := parsePyList(s)
	if err != nil {
		return nil, err
	}
	out := make([]Weighted, len(vals))
	for i, v := range vals {
		if !v.isList || len(v.list) != 2 || !v.list[0].isStr || !v.list[1].isNum {
			return nil, fmt.Errorf("item %d: want [pathology, probability]", i+1)
		}
		w := Weighted{Pathology: v.list[0].str, Probability: v.list[1].num}
		switch {
		case !d.known(w.Pathology):
			return nil, fmt.Errorf("item %d: unknown pathology %q (not in %s)", i+1, w.Pathology, ConditionsFile)
		case w.Probability < 0 || w.Probability > 1:
			return nil, fmt.Errorf("item %d: probability %v is not within [0, 1]", i+1, w.Probability)
		}
		out[i] = w
	}
	return out, nil
}
