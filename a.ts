const  x = 1
