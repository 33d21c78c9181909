module github.com/vramplan/vramplan

go 1.26.8
