package catalog

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestKey(t *testing.T) {
	for in, want := range map[string]string{
		"Chest X-ray":                  "chest x ray",
		"chest xray":                   "chest x ray",
		"Electrocardiogram (12 lead)":  "ecg 12 lead",
		"Serum TSH level, please":      "tsh",
		"full blood count":             "full blood count",
		"Get me a CT scan of the head": "ct head",
		"test":                         "",
	} {
		if got := Key(in); got != want {
			t.Errorf("Key(%q) = %q, want %q", in, got, want)
		}
	}
}

// containsWords must agree with the pattern it stands for, on any key.
func TestContainsWords(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	words := []string{"ct", "cta", "x", "ray", "x ray", "echo", "echocardiogram", "t4", "tsh", "urine"}
	for range 20000 {
		var key []string
		for range r.IntN(5) {
			key = append(key, words[r.IntN(len(words))])
		}
		padded := " " + strings.Join(key, " ") + " "
		w := words[r.IntN(len(words))]
		if got, want := containsWords(padded, w), strings.Contains(padded, " "+w+" "); got != want {
			t.Fatalf("containsWords(%q, %q) = %v, want %v", padded, w, got, want)
		}
	}
}

func TestInfer(t *testing.T) {
	for name, want := range map[string]Category{
		"CT abdomen":          CT,
		"CTA chest":           CT,
		"Doppler of the legs": Ultrasound,
		"free T4":             Thyroid,
		"urine dipstick":      Urinalysis,
		"12-lead ECG":         ECG,
	} {
		if got := Infer(name); got != want {
			t.Errorf("Infer(%q) = %v, want %v", name, got, want)
		}
	}
}
