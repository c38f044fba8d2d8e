package ddxplus_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/ddxplus"
)

func TestDictionaryIsTheRelease(t *testing.T) {
	d := dict(t)
	require.Len(t, d.Codes(), 223, "the release's 223 evidences")
	require.Len(t, d.Pathologies(), 49)
	// Byte order, as StreamBench's code numbers its labels: upper case
	// before lower ("PSVT" before "Pancreatic neoplasm").
	require.Equal(t, "Acute COPD exacerbation / infection", d.Pathologies()[0])
	require.Equal(t, "PSVT", d.Pathologies()[30])
	require.Equal(t, "Whooping cough", d.Pathologies()[48])
	e, ok := d.Evidence("E_56")
	require.True(t, ok)
	require.True(t, e.Scale, "a categorical evidence of whole numbers is a scale")
	require.Equal(t, "E_53", e.Group)
	c, ok := d.Condition("Myasthenia gravis")
	require.True(t, ok)
	require.Equal(t, "G70.0", c.ICD10)
}

// TestDecode decodes each kind of code the release writes: binary (E_91),
// categorical (E_130_@_V_156), multi-choice with several values
// (E_54_@_...), a scale (E_56_@_2), and the spelled-out N of E_204.
func TestDecode(t *testing.T) {
	d := dict(t)
	fs, err := d.Decode([]string{"E_91", "E_54_@_V_179", "E_130_@_V_156", "E_54_@_V_192", "E_56_@_2", "E_204_@_V_10"})
	require.NoError(t, err)
	require.Equal(t, []ddxplus.Finding{
		{Code: "E_91", Question: "Do you have a fever (either felt or measured with a thermometer)?", Answer: "yes"},
		{Code: "E_54", Question: "Characterize your pain:", Answer: "a knife stroke, sharp", Values: []string{"V_179", "V_192"}},
		{Code: "E_130", Question: "What color is the rash?", Answer: "pink", Values: []string{"V_156"}},
		{Code: "E_56", Question: "How intense is the pain?", Answer: "2 on a scale of 0 to 10", Values: []string{"2"}},
		{Code: "E_204", Question: "Have you traveled out of the country in the last 4 weeks?", Answer: "no", Values: []string{"V_10"}},
	}, fs)
	require.Equal(t, "How intense is the pain? 2 on a scale of 0 to 10.", fs[3].Line())

	for _, c := range []struct{ codes, want string }{
		{"E_999", `unknown evidence code "E_999"`},
		{"E_91_@_V_1", "E_91 is binary and takes no value"},
		{"E_130", "E_130 needs a value"},
		{"E_130_@_V_999", `E_130 has no value "V_999"`},
		{"E_56_@_11", `E_56 has no value "11"`},
		{"E_130_@_V_156 E_130_@_V_157", "E_130 is not multi-choice and is listed twice"},
	} {
		t.Run(c.codes, func(t *testing.T) {
			_, err := d.Decode(strings.Fields(c.codes))
			require.ErrorContains(t, err, c.want)
		})
	}
}

// TestStatement: the initial evidence in the patient's words, first person
// where the question allows it, else the question quoted with its answer.
func TestStatement(t *testing.T) {
	for _, c := range []struct{ q, want string }{
		{"Do you have a cough?", "I have a cough."},
		{"Are you experiencing shortness of breath or difficulty breathing in a significant way?", "I am experiencing shortness of breath or difficulty breathing in a significant way."},
		{"Do you have pain that is increased when you breathe in deeply?", "I have pain that is increased when I breathe in deeply."},
		{"Do you feel lightheaded and dizzy or do you feel like you are about to faint?", "I feel lightheaded and dizzy or I feel like I am about to faint."},
		{"Have you ever had pneumonia?", "I have had pneumonia."},
		{"Is your nose or the back of your throat itchy?", "Is your nose or the back of your throat itchy? Yes."},
	} {
		require.Equal(t, c.want, ddxplus.Finding{Question: c.q, Answer: "yes"}.Statement(), c.q)
	}
	require.Equal(t, "Characterize your pain: Sharp.", ddxplus.Finding{Question: "Characterize your pain:", Answer: "sharp"}.Statement())
}

// TestMatch: a question finds the evidence whose question holds most of its
// words; a question about nothing the release asks finds none.
func TestMatch(t *testing.T) {
	d := dict(t)
	for _, c := range []struct {
		q, want string
		ok      bool
	}{
		{"Do you have a fever (either felt or measured with a thermometer)?", "E_91", true},
		{"Do you have a fever?", "E_91", true},
		{"Any sore throat?", "E_97", true},
		{"Did you lose consciousness?", "E_159", true},
		{"Have you ever been to the moon?", "", false},
		{"?", "", false},
	} {
		code, ok := d.Match(c.q)
		require.Equal(t, c.ok, ok, c.q)
		if ok {
			require.Equal(t, c.want, code, c.q)
		}
	}
}

// TestResolve reads an answer as a pathology: its name in any case, the
// "<number>. <diagnosis>" form (numbered from 0, as StreamBench's code
// does), a name inside a longer answer; nothing else.
func TestResolve(t *testing.T) {
	d := dict(t)
	for _, c := range []struct{ in, want string }{
		{"URTI", "URTI"},
		{"urti", "URTI"},
		{"30. PSVT", "PSVT"},
		{"30.", "PSVT"},
		{"0. Acute COPD exacerbation / infection", "Acute COPD exacerbation / infection"},
		{"12. Bronchiolitis", "Bronchiolitis"},
		{"Probably viral pharyngitis, given the sore throat", "Viral pharyngitis"},
		{"Unstable angina", "Unstable angina"},
		{"Scurvy", ""},
		{"49. Scurvy", ""},
	} {
		got, ok := d.Resolve(c.in)
		require.Equal(t, c.want != "", ok, c.in)
		require.Equal(t, c.want, got, c.in)
	}
	require.Equal(t, []string{"URTI", "Influenza"}, d.ResolveAll([]string{"urti", "Scurvy", "Influenza", "URTI"}))
}

// TestBuiltinSample: the shipped sample decodes whole, in the file's order.
func TestBuiltinSample(t *testing.T) {
	cases := sample(t)
	require.Len(t, cases, 300)
	require.Equal(t, "ddxplus-release_test_patients_sample300-00001", cases[0].ID)
	require.Equal(t, "Pneumonia", cases[0].Manager.Diagnosis.Name)
	require.Equal(t, "I am experiencing shortness of breath or difficulty breathing in a significant way.", cases[0].Patient.OpeningComplaint)
	k := ddxplus.KeyOf(&cases[0])
	require.Len(t, k.Differential, 17)
	require.Equal(t, ddxplus.Weighted{Pathology: "Pneumonia", Probability: 0.09872966099247019}, k.Differential[0])
	require.Equal(t, "E_66", ddxplus.RecordOf(&cases[0]).Initial)
}
