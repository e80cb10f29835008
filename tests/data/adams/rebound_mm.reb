$-------------------------------------------------------------------mdi_header
[MDI_HEADER]
 FILE_TYPE     =  'reb'
 FILE_VERSION  =  4.0
 FILE_FORMAT   =  'ASCII'
(COMMENTS)
{comment_string}
'Rebound stop (fixture)'
$------------------------------------------------------------------------units
[UNITS]
 LENGTH  =  'mm'
 ANGLE   =  'degrees'
 FORCE   =  'newton'
 MASS    =  'kg'
 TIME    =  'second'
$------------------------------------------------------------------------curve
[curve]
{ disp   force }
             0.0                    0.0
             5.0                 1000.0
            10.0                 4000.0
            15.0                12000.0
