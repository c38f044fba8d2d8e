package ddxplus

import (
	"slices"
	"strconv"
	"strings"

	"github.com/clinevo/clinevo/textmatch"
)

// askAt is the share of a doctor's question's content words an evidence's
// question must hold more than for the question to ask about that evidence
// (clinevo's own threshold: more than half, so "Do you have a fever?" finds
// "Do you have a fever (either felt or measured with a thermometer)?" and
// "Have you ever been to the moon?" does not find "Have you ever been
// diagnosed with depression?").
const askAt = 0.5

// Match is the evidence a doctor's question asks about: the evidence whose
// question holds the largest share of the question's content words (more
// than askAt), the closer question (Jaccard) among equals, then the lower
// code. False when no evidence's question is close enough.
func (d *Dictionary) Match(question string) (string, bool) {
	q := textmatch.Set(question)
	if len(q) == 0 {
		return "", false
	}
	best, bestCov, bestJac := "", 0.0, 0.0
	for _, code := range d.codes {
		e := textmatch.Set(d.evidences[code].Question)
		cov, jac := textmatch.Coverage(q, e), textmatch.Jaccard(q, e)
		if cov > bestCov || (cov == bestCov && jac > bestJac) {
			best, bestCov, bestJac = code, cov, jac
		}
	}
	return best, bestCov > askAt
}

// Resolve reads a doctor's answer as one of the pathologies: the name itself
// in any case and punctuation, StreamBench's "<number>. <diagnosis>" form
// (the number counts the options from 0, as StreamBench's code numbers its
// 49 labels), or the longest pathology name the answer contains.
func (d *Dictionary) Resolve(answer string) (string, bool) {
	num, rest, numbered := strings.Cut(strings.TrimSpace(answer), ".")
	n, err := strconv.Atoi(strings.TrimSpace(num))
	if !numbered || err != nil {
		rest = answer
	}
	norm := textmatch.Normalize(rest)
	for _, name := range d.names {
		if textmatch.Normalize(name) == norm {
			return name, true
		}
	}
	best := ""
	for _, name := range d.names {
		if len(name) > len(best) && textmatch.ContainsPhrase(rest, name) {
			best = name
		}
	}
	switch {
	case best != "":
		return best, true
	case numbered && err == nil && n >= 0 && n < len(d.names):
		return d.names[n], true
	}
	return "", false
}

// ResolveAll reads a doctor's diagnosis list as pathologies, each once, in
// order; an entry that names none is left out.
func (d *Dictionary) ResolveAll(answers []string) []string {
	var out []string
	for _, a := range answers {
		if p, ok := d.Resolve(a); ok && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}
