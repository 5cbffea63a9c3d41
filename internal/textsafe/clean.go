package textsafe

import "reflect"

// Clean passes every string that v (a pointer, or a slice or map holding
// pointers or values) reaches through Text and WidthSafe, in place: fields
// of structs, elements of slices and arrays, map values (map keys are left
// alone). The console runs what it is about to show through it as it
// arrives, so its rows are cut and padded by widths it can count.
func Clean(v any) {
	clean1(reflect.ValueOf(v), 0)
}

func clean1(v reflect.Value, depth int) {
	if depth > 32 || !v.IsValid() {
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			clean1(v.Elem(), depth+1)
		}
	case reflect.String:
		if v.CanSet() {
			if s := v.String(); needs(s, true) || widthUnsure(s) {
				v.SetString(WidthSafe(Text(s)))
			}
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				clean1(v.Field(i), depth+1)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			clean1(v.Index(i), depth+1)
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		iter := v.MapRange()
		type kv struct{ k, v reflect.Value }
		var set []kv
		for iter.Next() {
			e := reflect.New(iter.Value().Type()).Elem()
			e.Set(iter.Value())
			clean1(e, depth+1)
			set = append(set, kv{iter.Key(), e})
		}
		for _, p := range set {
			v.SetMapIndex(p.k, p.v)
		}
	}
}
