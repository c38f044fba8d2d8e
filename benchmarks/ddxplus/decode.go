package ddxplus

import (
	"fmt"
	"slices"
	"strings"
)

// Finding is one evidence of a patient decoded to English: the question and
// the patient's answer. A multi-choice evidence holds every value the
// patient has, in the release's order.
type Finding struct {
	Code     string   `json:"code"`
	Question string   `json:"question"`
	Answer   string   `json:"answer"`
	Values   []string `json:"values,omitempty"` // the release's value codes ("V_156", "4"); none for a binary evidence
}

// valueSep joins an evidence code and its value in the release
// (E_54_@_V_179, E_56_@_2).
const valueSep = "_@_"

// Decode turns a patient's evidence codes into findings, one per evidence,
// in the order the codes first name each. An unknown code, a value the
// evidence does not have, a value on a binary evidence, or a second value of
// a categorical one is an error naming the code.
func (d *Dictionary) Decode(codes []string) ([]Finding, error) {
	var out []Finding
	at := map[string]int{}
	for _, raw := range codes {
		code, value, hasValue := strings.Cut(strings.TrimSpace(raw), valueSep)
		e, ok := d.evidences[code]
		switch {
		case !ok:
			return nil, fmt.Errorf("unknown evidence code %q (not in release_evidences.json)", raw)
		case e.Type == Binary && hasValue:
			return nil, fmt.Errorf("evidence %q: %s is binary and takes no value", raw, code)
		case e.Type != Binary && !hasValue:
			return nil, fmt.Errorf("evidence %q: %s needs a value (%s%s<value>)", raw, code, code, valueSep)
		case hasValue && !slices.Contains(e.Values, value):
			return nil, fmt.Errorf("evidence %q: %s has no value %q", raw, code, value)
		}
		i, seen := at[code]
		switch {
		case !seen:
			at[code] = len(out)
			out = append(out, Finding{Code: code, Question: e.Question})
			i = len(out) - 1
		case e.Type != MultiChoice:
			return nil, fmt.Errorf("evidence %q: %s is not multi-choice and is listed twice", raw, code)
		}
		if hasValue && !slices.Contains(out[i].Values, value) {
			out[i].Values = append(out[i].Values, value)
		}
	}
	for i := range out {
		out[i].Answer = d.answer(out[i])
	}
	return out, nil
}

// answer is a finding's answer in English: "yes" for a binary evidence, a
// scale's number with its range, or the values' meanings.
func (d *Dictionary) answer(f Finding) string {
	e := d.evidences[f.Code]
	switch {
	case e.Type == Binary:
		return "yes"
	case e.Scale:
		return fmt.Sprintf("%s on a scale of %s to %s", strings.Join(f.Values, ", "), e.Values[0], e.Values[len(e.Values)-1])
	}
	words := make([]string, len(f.Values))
	for i, v := range f.Values {
		words[i] = meaning(e.Meanings[v], v)
	}
	return strings.Join(words, ", ")
}

// meaning spells a value's English meaning: the release writes no and yes as
// N and Y, and none as NA (clinevo spells them out).
func meaning(en, code string) string {
	switch strings.TrimSpace(en) {
	case "":
		return code
	case "N":
		return "no"
	case "Y":
		return "yes"
	case "NA":
		return "none"
	}
	return en
}

// Line is a finding as one line of a profile: the question and the answer.
func (f Finding) Line() string { return f.Question + " " + capitalise(f.Answer) + "." }

// firstPerson are question openings and what a patient says instead, the
// longest first (clinevo's own rewriting of the release's questions).
var firstPerson = []struct{ ask, say string }{
	{"Do you currently, or did you ever, have ", "I have or have had "},
	{"Did you previously, or do you currently, have ", "I have or have had "},
	{"Do you have ", "I have "}, {"Do you feel ", "I feel "}, {"Do you find ", "I find "},
	{"Do your ", "My "}, {"Do you ", "I "}, {"Are you ", "I am "},
	{"Have you ever ", "I have "}, {"Have you ", "I have "}, {"Did you ", "I did "},
}

// Statement is a finding as the patient would tell it unprompted, in the
// first person where the question allows ("Do you have a cough?" becomes "I
// have a cough."); a question this rewriting does not know is quoted with
// the answer.
func (f Finding) Statement() string {
	q := strings.TrimSpace(f.Question)
	for _, fp := range firstPerson {
		rest, ok := strings.CutPrefix(q, fp.ask)
		if !ok || f.Answer != "yes" {
			continue
		}
		rest = strings.TrimRight(rest, "?:. ")
		for _, sw := range [][2]string{{" your ", " my "}, {" yourself", " myself"}, {" do you ", " I "}, {" are you ", " I am "}, {" you are ", " I am "}, {" you ", " I "}} {
			rest = strings.ReplaceAll(rest, sw[0], sw[1])
		}
		return fp.say + rest + "."
	}
	return q + " " + capitalise(f.Answer) + "."
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
