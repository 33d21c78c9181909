package golit

import (
	"bytes"
	"strings"
	"testing"
)

type inner struct {
	N    int64
	Rate float64
}

type row struct {
	Name  string
	On    bool
	Count uint8
	In    inner
	P     *inner
	List  []inner
	Tags  []string
	Empty []string
	skip  int
}

func TestElements(t *testing.T) {
	rows := []row{
		{Name: "a \"q\"", On: true, Count: 3, In: inner{N: -1, Rate: 0.25}, P: &inner{N: 1 << 40}, List: []inner{{N: 2}}, Tags: []string{"x"}, Empty: []string{}},
		{},
	}
	var b bytes.Buffer
	if err := Elements(&b, rows); err != nil {
		t.Fatal(err)
	}
	want := `{Name: "a \"q\"", On: true, Count: 3, In: golit.inner{N: -1, Rate: 0.25, }, P: &golit.inner{N: 1099511627776, }, List: []golit.inner{
{N: 2, },
}, Tags: []string{
"x",
}, Empty: []string{}, },
{},
`
	if got := b.String(); got != want {
		t.Errorf("Elements =\n%s\nwant\n%s", got, want)
	}
}

func TestRefuses(t *testing.T) {
	for _, v := range []any{
		[]map[string]int{{"a": 1}},
		[]any{1},
		[]row{{skip: 1}},
		3,
	} {
		var b bytes.Buffer
		if err := Elements(&b, v); err == nil || !strings.HasPrefix(err.Error(), "golit: ") {
			t.Errorf("Elements(%#v) = %v, want a golit error", v, err)
		}
	}
}
