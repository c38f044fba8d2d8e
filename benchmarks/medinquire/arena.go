package medinquire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
)

// DiagnosisArena (Zhu et al., arXiv 2505.14107) is the case pool of
// Med-Inquire (EvoClinician §4, "Data": 915 cases from case reports of ten
// journals, each with case information, physical examination, diagnostic
// tests and the final diagnosis). Its release is a Hugging Face parquet file
// of one row a case; the datasets library writes the same rows as JSON Lines
// with the same field names. Both read to the same cases.

// ArenaSource is the provenance source of imported DiagnosisArena cases.
const ArenaSource = "diagnosisarena"

// ArenaLicense is what each imported case's provenance says of its terms:
// the release's licence and the authors' terms of use (README of the
// release).
const ArenaLicense = "MIT; the authors' terms: research and model evaluation only, not for clinical decision-making or medical diagnosis"

// ArenaRecord is one row of the release, with the column names of the
// parquet file and of the JSON Lines written from it.
type ArenaRecord struct {
	ID                  int64        `parquet:"id" json:"id"`
	CaseInformation     string       `parquet:"Case Information" json:"Case Information"`
	PhysicalExamination string       `parquet:"Physical Examination" json:"Physical Examination"`
	DiagnosticTests     string       `parquet:"Diagnostic Tests" json:"Diagnostic Tests"`
	FinalDiagnosis      string       `parquet:"Final Diagnosis" json:"Final Diagnosis"`
	Options             ArenaOptions `parquet:"Options" json:"Options"`
	RightOption         string       `parquet:"Right Option" json:"Right Option"`
}

// ArenaOptions are the four multiple-choice options, one of them the final diagnosis.
type ArenaOptions struct {
	A string `parquet:"A" json:"A"`
	B string `parquet:"B" json:"B"`
	C string `parquet:"C" json:"C"`
	D string `parquet:"D" json:"D"`
}

// option returns the option with letter l.
func (o ArenaOptions) option(l string) (string, bool) {
	switch l {
	case "A":
		return o.A, true
	case "B":
		return o.B, true
	case "C":
		return o.C, true
	case "D":
		return o.D, true
	}
	return "", false
}

var _ corpus.Importer = Benchmark{}

// Formats is DiagnosisArena's release.
func (Benchmark) Formats() []corpus.Format {
	return []corpus.Format{{Name: ArenaSource,
		Doc: "DiagnosisArena: the Hugging Face parquet file, or JSON Lines written from it by the datasets library",
		Read: func(r io.Reader, name string, o corpus.Options) ([]clinic.Case, []corpus.Skipped, error) {
			return ImportArena(r, name, o.SkipInvalid)
		}}}
}

// parquetMagic opens (and closes) every parquet file.
var parquetMagic = []byte("PAR1")

// ImportArena reads DiagnosisArena records from r (a file called name):
// parquet when the file starts or ends with parquet's magic number or is
// called *.parquet (so that a file cut at its head fails as parquet, not as
// text), JSON Lines otherwise. Errors name the file, the record (row or line) and the field;
// with skipInvalid a bad record is listed and the rest imported.
func ImportArena(r io.Reader, name string, skipInvalid bool) ([]clinic.Case, []corpus.Skipped, error) {
	data, err := corpus.ReadBounded(r, name)
	if err != nil {
		return nil, nil, err
	}
	var recs []arenaRow
	if bytes.HasPrefix(data, parquetMagic) || bytes.HasSuffix(data, parquetMagic) || strings.HasSuffix(strings.ToLower(name), ".parquet") {
		recs, err = readArenaParquet(data, name)
	} else {
		recs, err = readArenaJSONL(data, name, skipInvalid)
	}
	if err != nil {
		return nil, nil, err
	}
	return convertArenaRows(recs, name, skipInvalid)
}

// arenaRow is a record and where it was: the 1-based row of a parquet file
// or line of a JSON Lines file; bad is why a line could not be read at all.
type arenaRow struct {
	rec   ArenaRecord
	where string
	line  int
	bad   error
}

// arenaColumns are the release's columns, Options by its four letters.
var arenaColumns = [][]string{{"id"}, {"Case Information"}, {"Physical Examination"}, {"Diagnostic Tests"}, {"Final Diagnosis"},
	{"Options", "A"}, {"Options", "B"}, {"Options", "C"}, {"Options", "D"}, {"Right Option"}}

// readArenaParquet reads every row. A file that is not whole parquet (cut
// short, or damaged) is an error naming the file and, where the damage is in
// the data, the rows and column.
func readArenaParquet(data []byte, name string) ([]arenaRow, error) {
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%s: not a whole parquet file (cut short or damaged), no record can be read: %w", name, err)
	}
	for _, path := range arenaColumns {
		if _, ok := f.Schema().Lookup(path...); !ok {
			return nil, fmt.Errorf("%s: field %q: no such column (not a DiagnosisArena file?)", name, strings.Join(path, "."))
		}
	}
	rd := parquet.NewGenericReader[ArenaRecord](f)
	defer rd.Close()
	var out []arenaRow
	buf := make([]ArenaRecord, 128)
	for {
		n, err := rd.Read(buf)
		for _, rec := range buf[:n] {
			out = append(out, arenaRow{rec: rec, where: fmt.Sprintf("%s: row %d", name, len(out)+1), line: len(out) + 1})
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: rows %d to %d: %w", name, len(out)+1, len(out)+len(buf), err)
		}
	}
}

// readArenaJSONL reads one record a line with the release's field names;
// a field it does not know is an error, as a misspelt one would be.
func readArenaJSONL(data []byte, name string, skipInvalid bool) ([]arenaRow, error) {
	var out []arenaRow
	err := corpus.EachLine(bytes.NewReader(data), name, func(line int, raw []byte) error {
		row := arenaRow{where: fmt.Sprintf("%s:%d", name, line), line: line}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&row.rec); err != nil {
			row.bad = errors.New(corpus.DescribeJSONError(err))
			if !skipInvalid {
				return fmt.Errorf("%s: %w", row.where, row.bad)
			}
		}
		out = append(out, row)
		return nil
	})
	return out, err
}

// convertArenaRows converts and validates each record, in file order.
func convertArenaRows(rows []arenaRow, name string, skipInvalid bool) ([]clinic.Case, []corpus.Skipped, error) {
	var cases []clinic.Case
	var skipped []corpus.Skipped
	seen := map[string]string{}
	for _, row := range rows {
		err := row.bad
		var c clinic.Case
		if err == nil {
			c, err = ArenaCase(row.rec)
		}
		if first, dup := seen[c.ID]; err == nil && dup {
			err = corpus.FieldError{Field: "id", Msg: fmt.Sprintf("duplicate id %d (first at %s)", row.rec.ID, first)}
		}
		if err != nil {
			if !skipInvalid {
				return nil, nil, fmt.Errorf("%s: %w", row.where, err)
			}
			skipped = append(skipped, corpus.Skipped{File: name, Line: row.line, Reason: err.Error()})
			continue
		}
		seen[c.ID] = row.where
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		return nil, skipped, fmt.Errorf("%s: no valid cases (%d records skipped)", name, len(skipped))
	}
	return cases, skipped, nil
}

// arenaCaseID is the native ID of a record: its id, zero-padded so that IDs sort in published order.
func arenaCaseID(id int64) string { return fmt.Sprintf("%s-%04d", ArenaSource, id) }
