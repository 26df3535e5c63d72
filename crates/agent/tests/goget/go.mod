module rtac/goget

go 1.19
