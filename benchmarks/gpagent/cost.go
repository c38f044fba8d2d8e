package gpagent

import (
	"strings"

	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/textmatch"
)

// costCategory is one row of GPAgentBench's cost table (appendix C.2, Table
// 4): the diagnostic category, every alias the paper lists for it, and the
// catalog price category that holds its price. The prices are the run's
// episode.prices (settings.Default holds Table 4's values: rapid tests 25,
// CBC 30, glucose 30, BMP 35, urinalysis 35, troponin 40, ECG 50, thyroid 50,
// X-ray 80, spirometry 100, ultrasound 250, CT 500, MRI 700 USD).
type costCategory struct {
	name    string
	aliases []string
	price   catalog.Category
}

// table4 is GPAgentBench appendix C.2, Table 4, with all of its aliases.
var table4 = []costCategory{
	{"Rapid Tests", []string{"strep test", "flu test", "pregnancy test", "rapid test", "h. pylori"}, catalog.Rapid},
	{"Complete Blood Count", []string{"cbc", "complete blood count", "blood count", "blood test"}, catalog.CBC},
	{"Blood Glucose", []string{"fingerstick glucose", "blood glucose", "hba1c"}, catalog.Glucose},
	{"Basic Metabolic Panel", []string{"bmp", "basic metabolic panel", "metabolic panel"}, catalog.Chemistry},
	{"Urinalysis", []string{"urinalysis", "urine", "urine dipstick"}, catalog.Urinalysis},
	{"Cardiac Biomarker", []string{"troponin", "cardiac biomarker"}, catalog.Troponin},
	{"Electrocardiogram", []string{"ecg", "ekg", "electrocardiogram"}, catalog.ECG},
	{"Thyroid Function", []string{"tsh", "thyroid", "thyroid function"}, catalog.Thyroid},
	{"X-ray", []string{"x-ray", "xray", "chest x-ray", "radiograph"}, catalog.XRay},
	{"Spirometry", []string{"spirometry", "pulmonary function"}, catalog.Spirometry},
	{"Ultrasound", []string{"ultrasound", "us", "sonograph"}, catalog.Ultrasound},
	{"Computed Tomography", []string{"ct", "ct scan", "computed tomography"}, catalog.CT},
	{"Magnetic Resonance", []string{"mri", "magnetic resonance"}, catalog.MRI},
}

// Category is the Table 4 category a test name falls in, and false when no
// alias names it. An alias matches as a whole phrase of the normalised name
// ("chest x-ray" and "abdominal us" hold "x ray" and "us"); a one-word alias
// of five letters or more also matches a word it begins ("sonography"). The
// longest matching alias wins, so "urine pregnancy test" is a rapid test and
// not a urinalysis.
func Category(test string) (string, catalog.Category, bool) {
	words := strings.Fields(textmatch.Normalize(test))
	name := " " + strings.Join(words, " ") + " "
	best, bestLen := -1, 0
	for i, row := range table4 {
		for _, a := range row.aliases {
			alias := textmatch.Normalize(a)
			hit := strings.Contains(name, " "+alias+" ")
			if !hit && len(alias) >= 5 && !strings.Contains(alias, " ") {
				for _, w := range words {
					hit = hit || strings.HasPrefix(w, alias)
				}
			}
			if hit && len(alias) > bestLen {
				best, bestLen = i, len(alias)
			}
		}
	}
	if best < 0 {
		return "", "", false
	}
	return table4[best].name, table4[best].price, true
}

// Price is the diagnostic cost in USD of a returned test (GPAgentBench C.2:
// tests only; physical examination and vital signs cost nothing): the price
// of the Table 4 category of the catalog item the request resolved to (or of
// the request's own words), or, for a test no alias names (the paper's table
// is silent on them), the price of the item's catalog category.
func Price(request string, item catalog.Item, prices map[string]float64) float64 {
	if item.Free() {
		return 0
	}
	for _, name := range []string{item.Name, request} {
		if _, cat, ok := Category(name); ok {
			return catalog.Price(catalog.Item{Category: cat}, prices)
		}
	}
	return catalog.Price(item, prices)
}
