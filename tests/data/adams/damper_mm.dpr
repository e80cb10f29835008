$---------------------------------------------------------------------MDI_HEADER
[MDI_HEADER]
FILE_TYPE     =  'dpr'
FILE_VERSION  =  4.0
FILE_FORMAT   =  'ASCII'
[UNITS]
 LENGTH = 'mm'
 ANGLE  = 'degrees'
 FORCE  = 'newton'
 MASS   = 'kg'
 TIME   = 'second'
$ velocity positive in extension (rebound), force positive in tension
[CURVE]
{ vel       force }
 -1000.0   -1200.0
 -100.0    -400.0
  0.0       0.0
  100.0     900.0
  1000.0    2600.0
